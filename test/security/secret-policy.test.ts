import { describe, expect, it } from "vitest";
import { readSecret, reservedSecretNames, secretNameProblem } from "../../src/security/secret-policy";

const env = { TEAM_KEY: "sk-team", EMPTY: "", DB: { prepare() {} }, AGENT: {}, JWT_SECRET: "signing-key", GATEWAY_SECRET_KEY: "admin" };

describe("secret policy", () => {
  it("reserves exactly the gateway's own keys", () => {
    expect([...reservedSecretNames].sort()).toEqual(["ACCOUNTS_KEYS", "FILE_LINK_SECRET", "GATEWAY_PUBLIC_KEY", "GATEWAY_SECRET_KEY", "JWT_SECRET", "WEBHOOK_SECRET"]);
  });

  it.each([...reservedSecretNames])("refuses %s at save (with or without the env) and when read", (name) => {
    expect(secretNameProblem(name)).toContain("one of the gateway's own keys");
    expect(secretNameProblem(name, env, { mustBeSet: false })).toContain("one of the gateway's own keys");
    expect(readSecret(env, name)).toEqual({ ok: false, refusal: "reserved" });
  });

  it("refuses bindings that are not string secrets", () => {
    expect(secretNameProblem("DB", env)).toContain("is a binding of this Worker, not a secret");
    expect(secretNameProblem("AGENT", env, { mustBeSet: false })).toContain("is a binding");
    expect(readSecret(env, "DB")).toEqual({ ok: false, refusal: "binding" });
  });

  it("refuses unset names when they must be set, and never reads an empty value", () => {
    expect(secretNameProblem("NOPE", env)).toContain("wrangler secret put NOPE");
    expect(secretNameProblem("NOPE", env, { mustBeSet: false })).toBeUndefined();
    expect(secretNameProblem("NOPE")).toBeUndefined();
    expect(readSecret(env, "NOPE")).toEqual({ ok: false, refusal: "unset" });
    expect(readSecret(env, "EMPTY")).toEqual({ ok: false, refusal: "unset" });
  });

  it("reads a string secret", () => {
    expect(secretNameProblem("TEAM_KEY", env)).toBeUndefined();
    expect(readSecret(env, "TEAM_KEY")).toEqual({ ok: true, value: "sk-team" });
  });
});
