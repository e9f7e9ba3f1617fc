/**
 * A tool's `resultSchema`, checked when the agent is saved, as input schemas
 * are: it must compile (`compileInputSchema`), since every result given for
 * the tool is validated against it. Unlike an input schema it may describe
 * any JSON value, not only an object.
 */
import { checkJsonDepth } from "../../json";
import { compileInputSchema, type SchemaProblem } from "./compile-input-schema";

export function checkResultSchema(schema: Record<string, unknown>): SchemaProblem[] {
  const depth = checkJsonDepth(schema);
  if (!depth.ok) return [{ path: [], message: depth.message }];
  const compiled = compileInputSchema(schema);
  return compiled.ok ? [] : compiled.problems;
}
