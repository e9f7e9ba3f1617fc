/** Schemas shared by several routes: ids in paths, the error envelope, and response helpers. */
import { z } from "@hono/zod-openapi";
import { errorCodes } from "../errors";

/** Every code an error envelope may carry (the one list in src/errors.ts). */
const ErrorCode = z.enum(errorCodes).openapi("ErrorCode", { description: "What went wrong, in snake_case (docs/api.md says when each comes)", example: "not_found" });

export const ErrorResponse = z
  .object({
    error: z.object({
      code: ErrorCode,
      message: z.string(),
      details: z.unknown().optional(),
    }),
  })
  .openapi("Error");

const id = (name: string, example: string) =>
  z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name, in: "path" }, example });

export const SpaceIdParam = z.object({ spaceId: id("spaceId", "spc_0123") });
export const AgentIdParam = z.object({ agentId: id("agentId", "agt_0123") });
export const EntityIdParam = z.object({ entityId: id("entityId", "ent_0123") });
export const RunIdParam = z.object({ runId: id("runId", "run_0123") });

export const jsonContent = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { "application/json": { schema } },
  description,
});

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  body: { content: { "application/json": { schema } }, required: true },
});

/** The error responses every authenticated route may give. */
export const errorResponses = {
  400: jsonContent(ErrorResponse, "Invalid input"),
  401: jsonContent(ErrorResponse, "Missing or invalid credentials"),
  403: jsonContent(ErrorResponse, "Authenticated but not allowed"),
  404: jsonContent(ErrorResponse, "Unknown id"),
} as const;

export const writeErrorResponses = {
  ...errorResponses,
  409: jsonContent(ErrorResponse, "Conflict"),
  413: jsonContent(ErrorResponse, "Body over the size limit"),
  415: jsonContent(ErrorResponse, "Body is not JSON"),
} as const;

export const SuccessResponse = z.object({ success: z.literal(true) }).openapi("Success");

/** Query-string integers, validated (never coerced silently from garbage). */
export const queryInteger = (name: string, minimum: number, maximum: number) =>
  z
    .string()
    // Up to 16 digits, so the largest safe integer (a maximum some queries take) reaches the range check.
    .regex(/^\d{1,16}$/, `${name} must be a non-negative integer`)
    .transform(Number)
    .pipe(z.number().int().min(minimum).max(maximum))
    .optional()
    .openapi({ param: { name, in: "query" }, type: "integer", minimum, maximum });
