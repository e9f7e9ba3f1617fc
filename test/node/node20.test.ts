/**
 * The SDK on Node 20, which has no global WebSocket: a member's subscription
 * falls back to SSE over fetch and sees its own message arrive. Runs the built
 * `client/dist/index.js` under the Node 20 found on PATH (CI's host Node).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { signToken } from "../../client/src/index";
import { admin, gateway, personInSpace } from "./gateway";

function findNode20(): string | undefined {
  for (const folder of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(folder, "node");
    if (!existsSync(candidate)) continue;
    try {
      if (execFileSync(candidate, ["--version"], { encoding: "utf8" }).startsWith("v20.")) return candidate;
    } catch {
      // not runnable
    }
  }
  return undefined;
}

const node20 = findNode20();
const root = join(import.meta.dirname, "..", "..");

describe("the client SDK on Node 20", () => {
  it.skipIf(!node20)("streams over SSE where there is no WebSocket, and sees a message posted", async () => {
    const { personId, spaceId } = await personInSpace("Nora");
    const token = await signToken(personId, { secret: gateway.vars.JWT_SECRET });
    const script = `
      import { Switchboard } from ${JSON.stringify(join(root, "client", "dist", "index.js"))};
      if (typeof globalThis.WebSocket !== "undefined") throw new Error("expected no global WebSocket on " + process.version);
      const client = new Switchboard({ baseUrl: process.env.BASE, publicKey: process.env.PUBLIC_KEY, token: process.env.TOKEN });
      const subscription = client.subscribe(process.env.SPACE, { afterSeq: 0 });
      const deadline = setTimeout(() => { console.error("no message within 20 s"); process.exit(1); }, 20000);
      subscription.on("status", ({ status }) => {
        if (status === "open") client.messages.send(process.env.SPACE, { text: "hello from " + process.version }).catch((error) => { console.error(error.message); process.exit(1); });
      });
      subscription.on("event", (event) => {
        if (event.type === "space.message") {
          console.log(JSON.stringify({ version: process.version, text: event.data.text, seq: event.seq }));
          clearTimeout(deadline);
          subscription.close();
        }
      });
      await subscription.done;
    `;
    const result = spawnSync(node20 as string, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 30_000,
      env: { PATH: process.env.PATH, BASE: gateway.baseUrl, PUBLIC_KEY: gateway.vars.GATEWAY_PUBLIC_KEY, TOKEN: token, SPACE: spaceId },
    });
    expect(result.status, result.stderr).toBe(0);
    const seen = JSON.parse(result.stdout.trim());
    expect(seen.version).toMatch(/^v20\./);
    expect(seen.text).toBe(`hello from ${seen.version}`);
    const { messages } = await admin.messages.list(spaceId);
    expect(messages.map((message) => message.seq)).toContain(seen.seq);
  });
});
