/**
 * `GET /api/stats` (secret key): counters of this isolate, for benchmarks and
 * operators. `d1Statements` counts every statement sent to D1 through the db
 * layer since the isolate started, `objectStatements` every statement the
 * Durable Objects ran on their own SQLite (in `wrangler dev`, the Worker and
 * its Durable Objects share one isolate, so these are the whole gateway's).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { statementCounter } from "../db/client";
import { objectStatementCounter } from "../db/object-statements";
import { createRouter } from "./context";
import { routeAccess } from "./route-access";
import { errorResponses, jsonContent } from "./schemas";

const Stats = z
  .object({
    d1Statements: z.number().int().openapi({ description: "Statements this isolate sent to D1" }),
    objectStatements: z.number().int().openapi({ description: "Statements the Durable Objects of this isolate ran on their own SQLite" }),
  })
  .openapi("Stats");

export const statsRoutes = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/api/stats",
    tags: ["meta"],
    ...routeAccess("secret"),
    responses: { 200: jsonContent(Stats, "Counters of this isolate"), ...errorResponses },
  }),
  (c) => {
    return c.json({ d1Statements: statementCounter.count, objectStatements: objectStatementCounter.count }, 200);
  },
);
