/** The Hono environment shared by every route: bindings and the caller. */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Principal } from "../auth/principal";
import type { AppEnv } from "../env";
import { ApiError } from "../errors";
import { createId, type IdPrefix } from "../ids";

/** Set on a write that carries an `Idempotency-Key`: ids derived from the key, so a retried write finds its records. */
export type Idempotency = { deriveId(prefix: IdPrefix): string };

export type ApiEnv = { Bindings: AppEnv; Variables: { principal: Principal; idempotency?: Idempotency; hop: number } };
/** A request's context on any route: a route's access declaration adds its admitted `caller` to the variables. */
export type ApiContext<Env extends ApiEnv = ApiEnv> = Context<Env>;

type Issue = { path: PropertyKey[]; message: string };

/** A validation failure as a 400 in the error envelope, listing the path of every problem. */
export function validationError(issues: readonly Issue[], where: string): ApiError {
  const problems = issues.map((issue) => ({
    path: issue.path.map(String).join("."),
    message: issue.message,
  }));
  const summary = problems.map((problem) => (problem.path ? `${problem.path}: ${problem.message}` : problem.message)).join("; ");
  return new ApiError(400, "validation_error", `Invalid ${where}: ${summary}`, problems);
}

export function createRouter(): OpenAPIHono<ApiEnv> {
  return new OpenAPIHono<ApiEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error.issues, result.target === "json" ? "body" : result.target);
    },
  });
}

/** A new id for a record this request creates: derived from its `Idempotency-Key` when it has one. */
export function newId<Env extends ApiEnv>(c: ApiContext<Env>, prefix: IdPrefix): string {
  return c.get("idempotency")?.deriveId(prefix) ?? createId(prefix);
}
