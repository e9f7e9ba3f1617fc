/**
 * Text body templates cannot be escaped: in a JSON text body each value is
 * encoded as JSON for where it stands, in a form body it is form-encoded. The
 * first cases are the ones an attacker got through before.
 */
import { describe, expect, it } from "vitest";
import type { GatewayExecutionInput } from "../../../src/tools/config/tool-config";
import { buildGatewayRequest } from "../../../src/tools/gateway/build-gateway-request";
import { checkGatewayConfig } from "../../../src/tools/config/check-gateway-config";
import { runGatewayTool } from "../../../src/tools/gateway/execute-gateway-tool";

const jsonBody = '{"amount": {{a}}, "currency": "EUR"}';
const formBody = "amount={{a}}&currency=EUR";
const post = (body: string, headers?: Record<string, string>): GatewayExecutionInput => ({ url: "https://pay.example/charge", method: "POST", body, ...(headers && { headers }) });

function sent(execution: GatewayExecutionInput, args: Record<string, unknown>) {
  const result = buildGatewayRequest(execution, args, {});
  if (!result.ok) throw new Error(result.error);
  return result.request;
}

function refused(execution: GatewayExecutionInput, args: Record<string, unknown>): string {
  const result = buildGatewayRequest(execution, args, {});
  if (result.ok) throw new Error(`expected an error, sent ${result.request.body}`);
  return result.error;
}

/** Values that would break out of a naive splice: quotes, backslashes, line breaks, separators, encodings. */
const hostile = [
  '1, "admin": true',
  '1}, "admin": {"x": 1',
  '", "admin": true, "x": "',
  "\\",
  '\\"',
  '\\\\", "admin": true, "x": "',
  "line\nbreak\r\n",
  "tab\there",
  "\u2028\u2029",
  "1&admin=1",
  "x=1&admin=true",
  "%26admin%3D1",
  "a+b c",
  "{{a}}",
  "${env.JWT_SECRET}",
  "",
  "café ☕",
];

describe("a JSON text body", () => {
  it('keeps "1, \\"admin\\": true" one value: no extra field reaches the upstream', () => {
    const request = sent(post(jsonBody), { a: '1, "admin": true' });
    expect(JSON.parse(request.body ?? "")).toEqual({ amount: '1, "admin": true', currency: "EUR" });
    expect(request.headers["content-type"]).toBe("application/json");
  });

  it("puts numbers, booleans, null, arrays and objects in as typed JSON values", () => {
    for (const a of [1, 2.5, -3, true, null, [1, "two"], { admin: true }]) {
      expect(JSON.parse(sent(post(jsonBody), { a }).body ?? "")).toEqual({ amount: a, currency: "EUR" });
    }
  });

  it.each(hostile)("keeps %j in its slot, in a value position and inside a string", (value) => {
    const template = '{"amount": {{a}}, "note": "paid: {{a}} ok", "{{a}}": 1, "list": [{{a}}, "{{a}}"]}';
    const body = JSON.parse(sent(post(template), { a: value }).body ?? "");
    expect(body).toEqual({ amount: value, note: `paid: ${value} ok`, [value]: 1, list: [value, value] });
  });

  it("uses JSON encoding whenever the Content-Type says JSON, whatever the template looks like", () => {
    const body = sent(post(' "{{a}}" ', { "Content-Type": "application/vnd.api+json" }), { a: '", "x' }).body;
    expect(JSON.parse(body ?? "")).toBe('", "x');
  });

  it("refuses a template that does not parse once filled, instead of sending text", () => {
    expect(refused(post('{"amount": {{a}}'), { a: 1 })).toBe("The body template is not valid JSON once its placeholders are filled");
    expect(refused(post('{"a": {{a}}{{a}}}'), { a: "x" })).toBe("The body template is not valid JSON once its placeholders are filled");
  });

  it("refuses a placeholder right after a backslash inside a string", () => {
    expect(refused(post('{"a": "\\{{a}}", "b": {{a}}}'), { a: '", "admin": true, "x": "' })).toBe("A placeholder in a JSON body cannot follow a backslash");
  });

  it("refuses a value that would nest the body deeper than 64 levels", () => {
    let deep: unknown = 1;
    for (let level = 0; level < 70; level += 1) deep = [deep];
    expect(refused(post(jsonBody), { a: deep })).toContain("deeper than 64 levels");
  });

  it("names a missing argument", () => {
    expect(refused(post(jsonBody), {})).toBe('Missing argument "a" for the body');
  });

  it("is checked when the agent is saved", () => {
    expect(checkGatewayConfig(post('{"amount": {{a}}'))).toEqual([{ path: ["body"], message: "The body template is not valid JSON once its placeholders are filled" }]);
    expect(checkGatewayConfig(post('{"a": "\\{{a}}", "b": 1}'))).toEqual([{ path: ["body"], message: "A placeholder in a JSON body cannot follow a backslash" }]);
    expect(checkGatewayConfig(post('"{{a}}', { "content-type": "application/json" }))).toHaveLength(1);
    expect(checkGatewayConfig(post(jsonBody))).toEqual([]);
    expect(checkGatewayConfig(post(formBody))).toEqual([]);
  });
});

describe("a form body", () => {
  it("keeps 1&admin=1 one value: no extra admin field reaches the upstream", () => {
    const request = sent(post(formBody), { a: "1&admin=1" });
    expect([...new URLSearchParams(request.body)]).toEqual([
      ["amount", "1&admin=1"],
      ["currency", "EUR"],
    ]);
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
  });

  it.each(hostile)("keeps %j in its slot, as a value and as a name", (value) => {
    const request = sent(post("{{a}}=1&amount={{a}}&currency=EUR"), { a: value });
    expect([...new URLSearchParams(request.body)]).toEqual([
      [value, "1"],
      ["amount", value],
      ["currency", "EUR"],
    ]);
  });

  it("form-encodes whenever the Content-Type says so, and keeps a configured one", () => {
    const request = sent(post("{{a}}", { "Content-Type": "application/x-www-form-urlencoded; charset=utf-8" }), { a: "x=1&y=2" });
    expect(request.body).toBe("x%3D1%26y%3D2");
    expect(request.headers).toEqual({ "Content-Type": "application/x-www-form-urlencoded; charset=utf-8" });
  });

  it("refuses text that cannot be encoded", () => {
    expect(refused(post(formBody), { a: "\ud800" })).toBe('Argument "a" cannot be put in a form body (it is not valid Unicode text)');
  });
});

describe("other text bodies", () => {
  it("insert values as they are under a Content-Type the gateway does not know (documented)", () => {
    const request = sent(post("Dear {{a}},", { "content-type": "text/plain" }), { a: "x&y=1" });
    expect(request.body).toBe("Dear x&y=1,");
  });
});

describe("through the network to the upstream", () => {
  it("the upstream receives exactly the two JSON fields and the two form fields", async () => {
    const call = async (body: string) => {
      const answer = await runGatewayTool({
        execution: { url: "http://api.test/echo", method: "POST", body },
        args: { a: '1, "admin": true' },
        env: {},
        timeoutMs: 5_000,
        maxResponseBytes: 100_000,
      });
      if (!answer.ok) throw new Error(answer.error);
      return answer.value as { body: string; headers: Record<string, string> };
    };
    const json = await call(jsonBody);
    expect(Object.keys(JSON.parse(json.body))).toEqual(["amount", "currency"]);
    const form = await call("amount={{a}}&currency=EUR");
    expect([...new URLSearchParams(form.body).keys()]).toEqual(["amount", "currency"]);
    expect(form.headers["content-type"]).toBe("application/x-www-form-urlencoded");
  });
});
