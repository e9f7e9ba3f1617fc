/** `GET /health`: liveness and the deployed version. */
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "./context";
import { jsonContent } from "./schemas";

const Health = z.object({ ok: z.literal(true), version: z.string() }).openapi("Health");

export const healthRoutes = createRouter().openapi(
  // `security: []`: the one route anyone may call, whatever the document's default.
  createRoute({ method: "get", path: "/health", tags: ["meta"], security: [], responses: { 200: jsonContent(Health, "The gateway is up") } }),
  (c) => c.json({ ok: true as const, version: c.env.SWITCHBOARD_VERSION }, 200),
);
