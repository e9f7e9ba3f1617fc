/** A JSON Schema object as configs carry it; compiled and checked by `checkInputSchema` where it is used. */
import { z } from "@hono/zod-openapi";

export const JsonSchemaObject = z.record(z.string(), z.unknown()).openapi("JsonSchema", {
  description: "A JSON Schema (draft 2020-12 or 7) for the tool's input object",
});
