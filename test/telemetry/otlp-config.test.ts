/**
 * The three OpenTelemetry settings: where traces go, with which headers, in
 * which encoding; and what `GET /health` says of a setting that cannot be
 * used (its name and what is wrong, never its value).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { envProblems } from "../../src/security/env-problems";
import { parseOtlpHeaders, readOtlpConfig } from "../../src/telemetry/otlp-config";

describe("OTEL_EXPORTER_OTLP_HEADERS", () => {
  it("reads key=value pairs, trimmed, values percent-decoded", () => {
    expect(parseOtlpHeaders("api-key=s%3Dcret%2C1 , X-Tenant = acme ,,")).toEqual({ ok: true, headers: { "api-key": "s=cret,1", "x-tenant": "acme" } });
    expect(parseOtlpHeaders("authorization=Basic%20dXNlcjpwYXNz")).toEqual({ ok: true, headers: { authorization: "Basic dXNlcjpwYXNz" } });
  });

  it.each([
    ["a pair without =", "api-key=abc,tenant", 'pair 2 of 2 has no "="'],
    ["a name that is no header name", "bad name=abc", "pair 1 of 1 has a name that is not an HTTP header name"],
    ["an empty name", "=abc", "pair 1 of 1 has a name that is not an HTTP header name"],
    ["a broken percent-escape", "api-key=%zz-very-secret", "pair 1 of 1 has a value that is not validly percent-encoded"],
    ["a decoded line break", "api-key=a%0Db", "pair 1 of 1 has a value a request header cannot carry"],
  ])("refuses %s, saying where and never what", (_why, text, problem) => {
    const parsed = parseOtlpHeaders(text);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problem).toContain(problem);
    expect(parsed.problem).not.toContain("abc");
    expect(parsed.problem).not.toContain("secret");
  });
});

describe("readOtlpConfig", () => {
  it("is off without an endpoint", () => {
    expect(readOtlpConfig({})).toEqual({ config: undefined, problems: [] });
    expect(readOtlpConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "" })).toEqual({ config: undefined, problems: [] });
  });

  it("sends traces to <endpoint>/v1/traces, protobuf unless told json", () => {
    expect(readOtlpConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318" }).config).toEqual({
      tracesUrl: "http://localhost:4318/v1/traces",
      headers: {},
      protocol: "http/protobuf",
    });
    const config = readOtlpConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://collector.example.com/otlp/",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: "api-key=k",
    }).config;
    expect(config).toEqual({ tracesUrl: "https://collector.example.com/otlp/v1/traces", headers: { "api-key": "k" }, protocol: "http/json" });
  });

  it("turns tracing off and names each setting that cannot be used", () => {
    const read = readOtlpConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "localhost:4318", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc", OTEL_EXPORTER_OTLP_HEADERS: "nope" });
    expect(read.config).toBeUndefined();
    expect(read.problems.map((problem) => problem.name)).toEqual(["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_HEADERS"]);
    // A good endpoint with bad headers sends nothing rather than send without them.
    expect(readOtlpConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318", OTEL_EXPORTER_OTLP_HEADERS: "a" }).config).toBeUndefined();
    expect(readOtlpConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "ftp://localhost" }).problems).toHaveLength(1);
    expect(readOtlpConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://user:pass@collector.example.com" }).problems).toHaveLength(1);
  });

  it("shows in the deployment's configuration problems by name, never by value", () => {
    const problems = envProblems({
      ...env,
      OTEL_EXPORTER_OTLP_ENDPOINT: "not a url with secret-ish-text",
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      OTEL_EXPORTER_OTLP_HEADERS: "api-key=%zz-top-secret",
    });
    expect(problems.map((problem) => problem.name)).toEqual(["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_HEADERS"]);
    const said = JSON.stringify(problems);
    expect(said).not.toContain("secret-ish");
    expect(said).not.toContain("top-secret");
    expect(said).not.toContain("api-key");
    expect(envProblems({ ...env, OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318", OTEL_EXPORTER_OTLP_HEADERS: "api-key=abc" })).toEqual([]);
  });
});
