/**
 * `client/openapi.json` is the document the client SDK's types are generated
 * from: it must be exactly what the Worker serves at `/openapi.json`. When a
 * route or schema changes, run `npm run client:generate` (it rewrites the
 * snapshot from this test and regenerates the types) and commit both.
 */
import { expect, it } from "vitest";
import { call } from "./support/api";

it("client/openapi.json matches GET /openapi.json (run `npm run client:generate` after changing a route)", async () => {
  const response = await call("/openapi.json");
  expect(response.status).toBe(200);
  const document: unknown = await response.json();
  await expect(`${JSON.stringify(document, null, 2)}\n`).toMatchFileSnapshot(
    "../client/openapi.json",
    "The OpenAPI document changed: run `npm run client:generate` and commit client/openapi.json and client/src/generated/openapi.ts",
  );
});
