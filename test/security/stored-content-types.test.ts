/**
 * Content types the gateway keeps with files and later sends as a header:
 * refused where they come in (`write_file`: a tool error for the model,
 * nothing written), and a file stored with a bad one before the rule is
 * still served (never a 500).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { signFileLink } from "../../src/security/file-links";
import { createFileTools } from "../../src/tools/builtins/file-tools";
import { mediaTypeProblem } from "../../src/tools/files/media-type";
import { call, createHuman, createSpace, memberHeaders } from "../support/api";
import { callTool, errorOf, okValue, toolContext } from "../support/catalogue";

const badContentTypes = [
  "text/plain\r\nX-Injected: 1",
  "text/plain\nx: y",
  "text/plain\r",
  "text/plain\0",
  'text/plain; charset="utf-8\r\n"',
  "text/pl\u0001ain",
  "text/pl\u00e4in",
  "",
  "text",
  "text/",
  "/plain",
  "text/plain/extra",
  "te xt/plain",
  "text/plain; charset",
  "text/plain; =utf-8",
  'text/plain; charset="unterminated',
  `text/${"x".repeat(200)}`,
];

const goodContentTypes = [
  "text/csv",
  "TEXT/Plain",
  "application/vnd.api+json; charset=utf-8",
  'text/plain; charset="utf-8"',
  "text/plain;charset=utf-8;format=flowed",
  "image/svg+xml",
  "text/plain;",
];

describe("the media type rule", () => {
  it.each(badContentTypes)("refuses %j", (value) => {
    expect(mediaTypeProblem(value)).toBeDefined();
  });

  it.each(goodContentTypes)("accepts %j", (value) => {
    expect(mediaTypeProblem(value)).toBeUndefined();
  });
});

describe("write_file's contentType", () => {
  it.each(badContentTypes)("refuses %j with a tool error and writes nothing", async (contentType) => {
    const run = crypto.randomUUID().slice(0, 8);
    const files = createFileTools(toolContext({ config: { files: { prefixes: [`t${run}`] } } }));
    expect(errorOf(await callTool(files, "write_file", { path: `t${run}/a.txt`, content: "x", contentType }))).toContain("content type");
    expect(await env.FILES.head(`files/t${run}/a.txt`)).toBeNull();
  });

  it.each(goodContentTypes)("keeps %j", async (contentType) => {
    const run = crypto.randomUUID().slice(0, 8);
    const files = createFileTools(toolContext({ config: { files: { prefixes: [`t${run}`] } } }));
    okValue(await callTool(files, "write_file", { path: `t${run}/a.txt`, content: "x", contentType }));
    expect((await env.FILES.head(`files/t${run}/a.txt`))?.httpMetadata?.contentType).toBe(contentType);
  });

  it("a written file downloads with the content type it was given", async () => {
    const run = crypto.randomUUID().slice(0, 8);
    const member = await createHuman();
    const spaceId = await createSpace([member]);
    const files = createFileTools(toolContext({ config: { files: { prefixes: [`t${run}`] } }, getActiveSpaceId: () => spaceId, isMemberOf: async (id) => id === spaceId }));
    okValue(await callTool(files, "write_file", { path: `t${run}/a.csv`, content: "a,b\n", contentType: "text/csv; charset=utf-8" }));
    const { url } = okValue<{ url: string }>(await callTool(files, "share_file", { path: `t${run}/a.csv` }));
    const response = await call(url, { headers: await memberHeaders(member) });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(await response.text()).toBe("a,b\n");
  });
});

describe("downloading a file stored with a content type the rule refuses", () => {
  it.each(["text/plain\r\nX-Injected: 1", "text/html\0", "not a type"])("serves %j as an octet-stream attachment, never a 500", async (contentType) => {
    const member = await createHuman();
    const spaceId = await createSpace([member]);
    const key = `files/t${crypto.randomUUID().slice(0, 8)}/old.html`;
    await env.FILES.put(key, "<script>alert(1)</script>", { httpMetadata: { contentType } });
    const link = await signFileLink(env as unknown as Record<string, unknown>, { key, spaceId, seconds: 600 });
    const response = await call(link.url, { headers: await memberHeaders(member) });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/octet-stream");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="old.html"');
    expect(response.headers.get("x-injected")).toBeNull();
    // Read as bytes: an octet-stream is not text, and the runtime warns when one is read with .text().
    expect(new TextDecoder().decode(await response.arrayBuffer())).toBe("<script>alert(1)</script>");
  });
});
