import { describe, expect, it } from "vitest";
import { buildGatewayRequest } from "../../../src/tools/gateway/build-gateway-request";
import type { GatewayRequest } from "../../../src/tools/gateway/build-gateway-request";

function built(result: ReturnType<typeof buildGatewayRequest>): GatewayRequest {
  if (!result.ok) throw new Error(`expected a request, got: ${result.error}`);
  return result.request;
}

function errorOf(result: ReturnType<typeof buildGatewayRequest>): string {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.request)}`);
  return result.error;
}

describe("buildGatewayRequest: URL placeholders", () => {
  const execution = { url: "https://api.example.com/v1/users/{{id}}/posts?q={{q}}&page=1" };
  const hostile = [
    "../",
    "../../admin",
    "..%2F..%2Fadmin",
    "?x=1",
    "&page=999",
    "#fragment",
    "@evil.com",
    "evil.com:443@",
    "%2F",
    "%2e%2e",
    ".%2e",
    "a/b",
    "a\\b",
    "café ☕ 東京",
    "line\r\nbreak",
    " spaces ",
  ];

  for (const value of hostile) {
    it(`keeps ${JSON.stringify(value)} inside its slot`, () => {
      const url = new URL(built(buildGatewayRequest(execution, { id: value, q: value }, {})).url);
      expect(url.origin).toBe("https://api.example.com");
      const segments = url.pathname.split("/");
      expect(segments).toHaveLength(5);
      expect(segments.slice(0, 3)).toEqual(["", "v1", "users"]);
      expect(segments[4]).toBe("posts");
      expect(decodeURIComponent(segments[3])).toBe(value);
      expect([...url.searchParams.keys()]).toEqual(["q", "page"]);
      expect(url.searchParams.get("q")).toBe(value);
      expect(url.searchParams.get("page")).toBe("1");
      expect(url.hash).toBe("");
    });
  }

  it("refuses a value that would be a . or .. path segment", () => {
    for (const id of ["..", "."]) {
      const result = buildGatewayRequest({ url: "https://api.example.com/v1/users/{{id}}" }, { id }, {});
      expect(errorOf(result)).toBe('An argument made a "." or ".." segment in the URL path');
    }
    // Part of a longer segment, dots are harmless.
    expect(built(buildGatewayRequest({ url: "https://h.example/files/{{name}}.json" }, { name: ".." }, {})).url).toBe("https://h.example/files/...json");
  });

  it("encodes numbers, booleans and objects by their text", () => {
    const request = built(buildGatewayRequest({ url: "https://h.example/{{n}}?flag={{flag}}&filter={{filter}}" }, { n: 42, flag: true, filter: { a: [1, "x y"] } }, {}));
    const url = new URL(request.url);
    expect(url.pathname).toBe("/42");
    expect(url.searchParams.get("flag")).toBe("true");
    expect(url.searchParams.get("filter")).toBe('{"a":[1,"x y"]}');
  });

  it("refuses placeholders in the scheme, host, port or user info", () => {
    const urls = [
      "https://{{host}}/v1",
      "https://api.{{domain}}.com/v1",
      "https://api.example.com:{{port}}/v1",
      "https://{{user}}@api.example.com/v1",
      "{{scheme}}://api.example.com/v1",
    ];
    for (const url of urls) {
      const error = errorOf(buildGatewayRequest({ url }, { host: "evil.com", domain: "evil", port: 1, user: "u", scheme: "https" }, {}));
      expect(error).toMatch(/placeholders in its scheme or host|absolute http\(s\) URL/);
    }
  });

  it("names a missing argument instead of leaving the slot empty", () => {
    expect(errorOf(buildGatewayRequest(execution, { id: "1" }, {}))).toBe('Missing argument "q" for the URL');
    expect(errorOf(buildGatewayRequest({ url: "https://h.example/{{constructor}}" }, {}, {}))).toBe('Missing argument "constructor" for the URL');
    expect(errorOf(buildGatewayRequest({ url: "https://h.example/{{a}}" }, "not an object", {}))).toBe('Missing argument "a" for the URL');
  });

  it("refuses text that cannot be percent-encoded", () => {
    expect(errorOf(buildGatewayRequest({ url: "https://h.example/{{a}}" }, { a: "\ud800" }, {}))).toMatch(/not valid Unicode/);
  });

  it("never resolves ${env.…} inside the URL", () => {
    const url = built(buildGatewayRequest({ url: "https://h.example/?q={{q}}" }, { q: "${env.SECRET}" }, { SECRET: "s3cret" })).url;
    expect(url).not.toContain("s3cret");
    expect(new URL(url).searchParams.get("q")).toBe("${env.SECRET}");
  });
});

describe("buildGatewayRequest: headers", () => {
  const env = { API_TOKEN: "tok_123", DB: { prepare() {} } };

  it("fills secrets from env and arguments from the call", () => {
    const request = built(buildGatewayRequest({ url: "https://h.example/", headers: { Authorization: "Bearer ${env.API_TOKEN}", "X-User": "{{user}}" } }, { user: "ada" }, env));
    expect(request.headers).toEqual({ Authorization: "Bearer tok_123", "X-User": "ada" });
  });

  it("refuses an unknown or non-string secret instead of sending the literal", () => {
    const unknown = errorOf(buildGatewayRequest({ url: "https://h.example/", headers: { "X-Key": "${env.NOPE}" } }, {}, env));
    expect(unknown).toBe('Header "X-Key" uses the secret "NOPE", which is not set');
    const binding = errorOf(buildGatewayRequest({ url: "https://h.example/", headers: { "X-Key": "${env.DB}" } }, {}, env));
    expect(binding).toBe('Header "X-Key" uses the secret "DB", which is a binding of this Worker, not a secret');
  });

  it("never sends the gateway's own keys, even when a stored config names them", () => {
    const keys = { ...env, GATEWAY_SECRET_KEY: "k1", GATEWAY_PUBLIC_KEY: "k2", JWT_SECRET: "k3", WEBHOOK_SECRET: "k4" };
    for (const name of ["GATEWAY_SECRET_KEY", "GATEWAY_PUBLIC_KEY", "JWT_SECRET", "WEBHOOK_SECRET"]) {
      const error = errorOf(buildGatewayRequest({ url: "https://h.example/", headers: { Authorization: `Bearer \${env.${name}}` } }, {}, keys));
      expect(error).toBe(`Header "Authorization" uses the secret "${name}", which is one of the gateway's own keys (they never leave it)`);
    }
  });

  it("refuses header injection through an argument", () => {
    for (const user of ["ada\r\nX-Admin: 1", "ada\nX-Admin: 1", "ada\rx", "ada\0"]) {
      const error = errorOf(buildGatewayRequest({ url: "https://h.example/", headers: { "X-User": "{{user}}" } }, { user }, env));
      expect(error).toBe('Argument "user" cannot be used in header "X-User": it contains a line break');
    }
  });

  it("does not let an argument name a secret", () => {
    const request = built(buildGatewayRequest({ url: "https://h.example/", headers: { "X-User": "{{user}}" } }, { user: "${env.API_TOKEN}" }, env));
    expect(request.headers["X-User"]).toBe("${env.API_TOKEN}");
  });

  it("refuses an invalid header name", () => {
    expect(errorOf(buildGatewayRequest({ url: "https://h.example/", headers: { "Bad Name": "x" } }, {}, env))).toBe('Header "Bad Name" is not a valid HTTP header');
  });
});

describe("buildGatewayRequest: body", () => {
  // Where the request's configured headers may go: the configured URL's own origin.
  const hExample = { origin: "https://h.example", policy: { allowPrivateHosts: true } };

  it("fills a configured JSON body, keeping whole-placeholder values typed", () => {
    const request = built(
      buildGatewayRequest(
        {
          url: "https://h.example/search",
          method: "POST",
          body: { query: "{{q}}", limit: "{{limit}}", meta: { text: "city: {{city}}", list: ["{{ limit }}", 1, null, true] } },
        },
        { q: 'x", "admin": true, "y": "', limit: 5, city: "Oslo" },
        {},
      ),
    );
    expect(request.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(request.body ?? "")).toEqual({
      query: 'x", "admin": true, "y": "',
      limit: 5,
      meta: { text: "city: Oslo", list: [5, 1, null, true] },
    });
  });

  it("treats a string body holding JSON the same way", () => {
    const request = built(buildGatewayRequest({ url: "https://h.example/", method: "PUT", body: '{"id": "{{id}}"}' }, { id: 7 }, {}));
    expect(request.body).toBe('{"id":7}');
  });

  it("sends a name=value template as a form, and other text as it is, without a JSON content type", () => {
    const form = built(buildGatewayRequest({ url: "https://h.example/", method: "POST", body: "name={{name}}" }, { name: "ada" }, {}));
    expect(form.body).toBe("name=ada");
    expect(form.headers).toEqual({ "content-type": "application/x-www-form-urlencoded" });
    const text = built(buildGatewayRequest({ url: "https://h.example/", method: "POST", body: "Hello {{name}}!" }, { name: "ada" }, {}));
    expect(text.body).toBe("Hello ada!");
    expect(text.headers).toEqual({});
  });

  it("names a missing body argument", () => {
    expect(errorOf(buildGatewayRequest({ url: "https://h.example/", method: "POST", body: { a: "{{a}}" } }, {}, {}))).toBe('Missing argument "a" for the body');
  });

  it("sends the arguments as JSON for POST, PUT and PATCH without a configured body", () => {
    for (const method of ["POST", "PUT", "PATCH"] as const) {
      const request = built(buildGatewayRequest({ url: "https://h.example/", method }, { city: "Oslo" }, {}));
      expect(request).toEqual({ url: "https://h.example/", method, headers: { "content-type": "application/json" }, body: '{"city":"Oslo"}', pin: hExample });
    }
  });

  it("sends no body for GET and DELETE, and does not append unused arguments", () => {
    for (const method of ["GET", "DELETE"] as const) {
      const request = built(buildGatewayRequest({ url: "https://h.example/items/{{id}}", method }, { id: "9", extra: "x" }, {}));
      expect(request).toEqual({ url: "https://h.example/items/9", method, headers: {}, pin: hExample });
    }
    expect(built(buildGatewayRequest({ url: "https://h.example/" }, {}, {})).method).toBe("GET");
  });

  it("refuses a configured body on a GET tool", () => {
    expect(errorOf(buildGatewayRequest({ url: "https://h.example/", method: "GET", body: { a: 1 } }, {}, {}))).toBe("A GET tool cannot have a body");
  });

  it("keeps a configured content type", () => {
    const request = built(buildGatewayRequest({ url: "https://h.example/", method: "POST", headers: { "Content-Type": "application/vnd.api+json" } }, { a: 1 }, {}));
    expect(request.headers).toEqual({ "Content-Type": "application/vnd.api+json" });
  });
});
