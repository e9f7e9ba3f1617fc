import { env } from "cloudflare:workers";
import { sign } from "hono/jwt";
import { describe, expect, it } from "vitest";
import { callJson, createHuman, createSpace } from "./support/api";

describe("JWT rules", () => {
  it("a token without exp is refused: exp is enforced", async () => {
    const ada = await createHuman();
    const spaceId = await createSpace([ada]);
    const token = await sign({ sub: ada }, env.JWT_SECRET, "HS256");
    const answer = await callJson<{ error: { code: string; message: string } }>(`/api/spaces/${spaceId}/messages`, {
      headers: { "x-public-key": env.GATEWAY_PUBLIC_KEY, authorization: `Bearer ${token}` },
    });
    expect(answer.status).toBe(401);
    expect(answer.body.error.message).toContain("exp");
  });
});
