/**
 * `GET /health`: liveness, the deployed version, and whether the deployment
 * is configured well enough to work. The secrets, vars and bindings are
 * checked once per isolate (`cachedEnvProblems`), so the route stays a
 * lookup. A problem makes it a 503, which load balancers read as unhealthy;
 * the answer names each setting and what is wrong with it, never a value.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { errorEnvelope } from "../errors";
import { cachedEnvProblems } from "../security/env-problems";
import { createRouter } from "./context";
import { routeAccess } from "./route-access";
import { jsonContent } from "./schemas";

const Health = z.object({ ok: z.literal(true), version: z.string() }).openapi("Health");

const EnvProblem = z
  .object({
    name: z.string().openapi({ description: "The secret, var or binding", example: "JWT_SECRET" }),
    problem: z
      .string()
      .openapi({ description: "What is wrong with it (never its value)", example: "is shorter than 32 bytes; use a long random value (e.g. 48 random bytes, base64)" }),
  })
  .openapi("ConfigurationProblem");

const Unhealthy = z
  .object({
    ok: z.literal(false),
    version: z.string(),
    problems: z.array(EnvProblem).min(1),
    error: z.object({ code: z.literal("misconfigured"), message: z.string() }),
  })
  .openapi("Unhealthy");

export const healthRoutes = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/health",
    tags: ["meta"],
    ...routeAccess("anyone"),
    responses: {
      200: jsonContent(Health, "The gateway is up and configured"),
      503: jsonContent(Unhealthy, "The gateway is up, but a secret, var or binding is missing or wrong: each problem is listed"),
    },
  }),
  (c) => {
    const version = typeof c.env.SWITCHBOARD_VERSION === "string" ? c.env.SWITCHBOARD_VERSION : "";
    const problems = cachedEnvProblems(c.env);
    if (problems.length === 0) return c.json({ ok: true as const, version }, 200);
    const message = `The gateway is misconfigured: ${problems.map((entry) => `${entry.name} ${entry.problem}`).join("; ")}`;
    return c.json({ ok: false as const, version, problems, ...errorEnvelope("misconfigured", message) }, 503);
  },
);
