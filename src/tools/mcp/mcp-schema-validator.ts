/**
 * The JSON Schema validator the MCP client is given: the SDK checks a tool's
 * `structuredContent` against the `outputSchema` the server listed, both of
 * them the server's. It goes through the gateway's own compiled validator
 * (`json-schema/safe-validator.ts`), so a server's evil `pattern` or
 * fan-out schema is bounded like any tool schema, never run on the
 * JavaScript engine's backtracking expressions. A schema that cannot be used
 * (a lookahead, a remote `$ref`) fails the call with the reason.
 */
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import { compileInputSchema } from "../json-schema/compile-input-schema";
import { validateToolArguments } from "../engine/validate-tool-arguments";

export class McpSchemaValidator implements jsonSchemaValidator {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const record: Record<string, unknown> = { ...schema };
    const compiled = compileInputSchema(record);
    return (input: unknown) => {
      if (!compiled.ok) {
        const [problem] = compiled.problems;
        const where = problem.path.length > 0 ? ` at ${problem.path.join(".")}` : "";
        return { valid: false, data: undefined, errorMessage: `the tool's outputSchema cannot be used${where}: ${problem.message}` };
      }
      const checked = validateToolArguments(record, input);
      // Validated against the schema the caller asked for: the SDK's own providers answer the same way.
      return checked.ok ? { valid: true, data: input as T, errorMessage: undefined } : { valid: false, data: undefined, errorMessage: checked.problems.join("; ") };
    };
  }
}
