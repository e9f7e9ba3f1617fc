/**
 * The deployment's secrets and bindings are checked once per isolate:
 * `envProblems` from a given env, `cachedEnvProblems` keeping the answer, and
 * `GET /health` reporting it (200 with the test bindings, 503 naming each
 * problem and never a value when something is wrong).
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/api/app";
import { cachedEnvProblems, envProblems } from "../../src/security/env-problems";
import { capturedErrors } from "../support/captured-errors";
import { expectErrorEnvelope } from "../support/error-envelope";

type Unhealthy = { ok: false; version: string; problems: { name: string; problem: string }[]; error: { code: string; message: string } };

/** The test bindings with some settings changed (`undefined` removes one). */
function envWith(changes: Record<string, unknown>): Record<string, unknown> {
  const changed: Record<string, unknown> = { ...env, ...changes };
  for (const [name, value] of Object.entries(changes)) if (value === undefined) delete changed[name];
  return changed;
}

const names = (problems: { name: string }[]) => problems.map((problem) => problem.name);

describe("envProblems", () => {
  it("finds nothing wrong with the test bindings", () => {
    expect(envProblems({ ...env })).toEqual([]);
  });

  it("names each missing or wrong secret, var and binding", () => {
    const problems = envProblems(
      envWith({
        GATEWAY_SECRET_KEY: undefined,
        GATEWAY_PUBLIC_KEY: " padded-public-key\n",
        JWT_SECRET: "short-jwt-secret",
        WEBHOOK_SECRET: "",
        FILE_LINK_SECRET: "short-file-secret",
        DB: undefined,
        FILES: "not a bucket",
        AGENT: {},
        SPACE: undefined,
        SWITCHBOARD_VERSION: undefined,
        ALLOW_PRIVATE_URLS: "no",
        PUBLIC_URL: "gateway.example.com",
        ACCOUNTS_KEYS: "local1:too-short",
      }),
    );
    expect(names(problems)).toEqual([
      "GATEWAY_SECRET_KEY",
      "GATEWAY_PUBLIC_KEY",
      "JWT_SECRET",
      "WEBHOOK_SECRET",
      "FILE_LINK_SECRET",
      "DB",
      "FILES",
      "AGENT",
      "SPACE",
      "SWITCHBOARD_VERSION",
      "ALLOW_PRIVATE_URLS",
      "ACCOUNTS_KEYS",
      "PUBLIC_URL",
    ]);
    expect(problems.find((entry) => entry.name === "JWT_SECRET")?.problem).toMatch(/^is shorter than 32 bytes/);
    expect(problems.find((entry) => entry.name === "WEBHOOK_SECRET")?.problem).toBe("is empty");
    expect(problems.find((entry) => entry.name === "GATEWAY_SECRET_KEY")?.problem).toBe("is not set");
    expect(problems.find((entry) => entry.name === "ACCOUNTS_KEYS")?.problem).toMatch(/^has a key that is not 32 bytes in base64/);
    expect(JSON.stringify(problems)).not.toContain("too-short");
  });

  it("ACCOUNTS_KEYS is optional (no accounts can be connected without it), and a usable one is no problem", () => {
    expect(envProblems(envWith({ ACCOUNTS_KEYS: undefined }))).toEqual([]);
    expect(envProblems(envWith({ ACCOUNTS_KEYS: "" }))).toEqual([]);
    expect(envProblems(envWith({ ACCOUNTS_KEYS: `old:${btoa("k".repeat(32))},new:${btoa("n".repeat(32))}` }))).toEqual([]);
  });

  it("refuses a public key that opens everything or signs tokens", () => {
    expect(envProblems(envWith({ GATEWAY_PUBLIC_KEY: env.GATEWAY_SECRET_KEY }))).toEqual([
      { name: "GATEWAY_PUBLIC_KEY", problem: expect.stringContaining("same as GATEWAY_SECRET_KEY") },
    ]);
    const sharedKey = "a-public-key-that-is-also-the-jwt-secret";
    expect(envProblems(envWith({ GATEWAY_PUBLIC_KEY: sharedKey, JWT_SECRET: sharedKey }))).toEqual([
      { name: "JWT_SECRET", problem: expect.stringContaining("same as GATEWAY_PUBLIC_KEY") },
    ]);
  });

  it("accepts every webhook secret form, optional settings left out, and the URL policy's two values", () => {
    for (const WEBHOOK_SECRET of ["whsec_not base64!", "whsec_dGVzdA==", "plain"]) expect(envProblems(envWith({ WEBHOOK_SECRET }))).toEqual([]);
    for (const ALLOW_PRIVATE_URLS of [undefined, "", "true", "false", " FALSE "]) expect(envProblems(envWith({ ALLOW_PRIVATE_URLS }))).toEqual([]);
    expect(envProblems(envWith({ FILE_LINK_SECRET: "", PUBLIC_URL: "" }))).toEqual([]);
    expect(envProblems(envWith({ FILE_LINK_SECRET: "x".repeat(32), PUBLIC_URL: "https://gateway.example.com" }))).toEqual([]);
  });

  it("is worked out once per env and kept, and logged the first time, naming the setting", async () => {
    // A fresh copy of this one module (a query makes it another module to the loader): it logs only the first problems its
    // isolate meets, and files share an isolate. Not vi.resetModules(): that would load the Worker's entry again for the
    // files that run next in this isolate, and workerd then breaks every object made from the old one ("src/index.ts changed").
    // The shared copy has logged by now (here, or in a file before this one), so a copy that shares its state would not log below.
    const logged = capturedErrors();
    expect(cachedEnvProblems(envWith({ JWT_SECRET: "short" }))).not.toHaveLength(0);
    const loggedBefore = logged().length;
    const freshCopy = "../../src/security/env-problems?fresh-copy";
    const { cachedEnvProblems: freshCachedEnvProblems } = (await import(/* @vite-ignore */ freshCopy)) as typeof import("../../src/security/env-problems");
    const given = envWith({ WEBHOOK_SECRET: "" });
    const first = freshCachedEnvProblems(given);
    expect(names(first)).toEqual(["WEBHOOK_SECRET"]);
    expect(freshCachedEnvProblems(given)).toBe(first);
    expect(freshCachedEnvProblems(envWith({ JWT_SECRET: "short" }))).not.toHaveLength(0);
    expect(logged().slice(loggedBefore)).toEqual(["configuration problem: WEBHOOK_SECRET is empty"]);
  });
});

describe("GET /health", () => {
  it("is 200 {ok, version} with the test bindings, for anyone", async () => {
    const response = await exports.default.fetch(new Request("http://gateway.test/health"));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, version: env.SWITCHBOARD_VERSION });
  });

  it("is 503 naming each problem, in the error envelope too, and never shows a value", async () => {
    // The log too, if these are the first problems the isolate meets (the test above used a fresh copy of the module).
    const logged = capturedErrors();
    const secrets = { JWT_SECRET: "tiny-jwt-value", WEBHOOK_SECRET: "", GATEWAY_PUBLIC_KEY: env.GATEWAY_SECRET_KEY };
    const response = await createApp().request("/health", {}, envWith(secrets));
    expect(response.status).toBe(503);
    const text = await response.text();
    const body = JSON.parse(text) as Unhealthy;
    expect(body).toMatchObject({ ok: false, version: env.SWITCHBOARD_VERSION });
    expect(names(body.problems)).toEqual(["GATEWAY_PUBLIC_KEY", "JWT_SECRET", "WEBHOOK_SECRET"]);
    expectErrorEnvelope({ error: body.error }, "misconfigured");
    for (const value of [secrets.JWT_SECRET, env.GATEWAY_SECRET_KEY, "tiny", "test-secret"]) {
      expect(text).not.toContain(value);
      for (const line of logged()) expect(line).not.toContain(value);
    }
    for (const line of logged()) expect(line).toMatch(/^configuration problem: (GATEWAY_PUBLIC_KEY|JWT_SECRET|WEBHOOK_SECRET) /);
  });
});
