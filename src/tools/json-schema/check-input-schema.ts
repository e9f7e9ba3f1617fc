/**
 * A tool's input schema, checked before any model sees it: when an agent is
 * saved (configured and prebuilt-override schemas) and when an MCP server
 * lists its tools. The model must be asked for an object, and the schema must
 * compile (see `compileInputSchema`).
 */
import { checkJsonDepth } from "../../json";
import { compileInputSchema, type SchemaProblem } from "./compile-input-schema";

export function checkInputSchema(schema: Record<string, unknown>): SchemaProblem[] {
  // A listed MCP schema did not come through the request edge: bound it before anything walks it.
  const depth = checkJsonDepth(schema);
  if (!depth.ok) return [{ path: [], message: depth.message }];
  const compiled = compileInputSchema(schema);
  if (!compiled.ok) return compiled.problems;
  if (schema.type !== undefined && schema.type !== "object") {
    return [{ path: ["type"], message: 'A tool input schema must describe an object ("type": "object")' }];
  }
  return [];
}
