import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { signFileLink } from "../../../src/security/file-links";
import { createFileTools } from "../../../src/tools/builtins/file-tools";
import { call, createHuman, createSpace, memberHeaders, secretHeaders, tokenFor } from "../../support/api";
import { readErrorEnvelope } from "../../support/error-envelope";
import { callTool, errorOf, okValue, toolContext } from "../../support/catalogue";

/** A fresh folder per test, so tests never see each other's files. */
function folders(...names: string[]) {
  const run = crypto.randomUUID().slice(0, 8);
  return names.map((name) => `t${run}/${name}`);
}

async function allKeys(prefix: string): Promise<string[]> {
  return (await env.FILES.list({ prefix })).objects.map((object) => object.key).sort();
}

describe("files: R2 under the folders the config allows", () => {
  it("write, read (lines), info, list (flat and recursive), move, delete", async () => {
    const [reports] = folders("reports");
    const files = createFileTools(toolContext({ config: { files: { prefixes: [`${reports}/`] } } }));
    expect(okValue(await callTool(files, "write_file", { path: `${reports}/q3.md`, content: "# Q3\nrevenue up\ncosts flat\n" }))).toEqual({
      path: `${reports}/q3.md`,
      size: 27,
      created: true,
      bytesWritten: 27,
    });
    okValue(await callTool(files, "write_file", { path: `${reports}/2026/jan.csv`, content: "a,b\n1,2\n", contentType: "text/csv" }));

    expect(okValue(await callTool(files, "read_file", { path: `${reports}/q3.md`, offset: 2, limit: 2 }))).toMatchObject({
      content: "revenue up\ncosts flat",
      totalLines: 4,
      fromLine: 2,
      toLine: 3,
    });
    const info = okValue<{ updated: string; modified: string }>(await callTool(files, "get_file_info", { path: `${reports}/2026/jan.csv` }));
    expect(info).toMatchObject({ exists: true, size: 8, contentType: "text/csv", modified: info.updated });
    expect(okValue(await callTool(files, "get_file_info", { path: `${reports}/none.md` }))).toEqual({ path: `${reports}/none.md`, exists: false });

    const flat = okValue<{ files: { path: string }[]; folders: string[] }>(await callTool(files, "list_files", { path: reports }));
    expect(flat.files.map((file) => file.path)).toEqual([`${reports}/q3.md`]);
    expect(flat.folders).toEqual([`${reports}/2026/`]);
    const deep = okValue<{ files: { path: string }[] }>(await callTool(files, "list_files", { path: reports, recursive: true }));
    expect(deep.files.map((file) => file.path).sort()).toEqual([`${reports}/2026/jan.csv`, `${reports}/q3.md`]);
    expect(okValue(await callTool(files, "list_files", {}))).toEqual({ path: "", folders: [`${reports}/`], files: [] });
    // The catalogue's pattern: a glob on the linear engine; without a "/" it matches names, with one paths below the folder.
    okValue(await callTool(files, "write_file", { path: `${reports}/2026/feb.md`, content: "x" }));
    const names = async (input: Record<string, unknown>) =>
      okValue<{ files: { path: string; modified: string }[] }>(await callTool(files, "list_files", { path: reports, ...input }))
        .files.map((file) => file.path)
        .sort();
    expect(await names({ recursive: true, pattern: "*.md" })).toEqual([`${reports}/2026/feb.md`, `${reports}/q3.md`]);
    expect(await names({ recursive: true, pattern: "2026/*.cs?" })).toEqual([`${reports}/2026/jan.csv`]);
    expect(await names({ recursive: true, pattern: "**/f*" })).toEqual([`${reports}/2026/feb.md`]);
    expect(await names({ recursive: true, pattern: "q3.md(" })).toEqual([]);
    expect(await names({ pattern: "*.csv" })).toEqual([]);
    expect(okValue<{ files: { modified: string; updated: string }[] }>(await callTool(files, "list_files", { path: reports })).files[0]).toMatchObject({
      modified: expect.stringMatching(/^\d{4}-/),
    });
    okValue(await callTool(files, "delete_file", { path: `${reports}/2026/feb.md` }));

    expect(okValue(await callTool(files, "move_file", { from: `${reports}/q3.md`, to: `${reports}/archive/q3.md` }))).toEqual({
      from: `${reports}/q3.md`,
      to: `${reports}/archive/q3.md`,
    });
    expect(await allKeys(`files/${reports}/`)).toEqual([`files/${reports}/2026/jan.csv`, `files/${reports}/archive/q3.md`]);
    okValue(await callTool(files, "write_file", { path: `${reports}/other.md`, content: "x" }));
    expect(errorOf(await callTool(files, "move_file", { from: `${reports}/other.md`, to: `${reports}/archive/q3.md` }))).toContain("overwrite: true");
    expect(okValue(await callTool(files, "delete_file", { path: `${reports}/other.md` }))).toEqual({ path: `${reports}/other.md`, deleted: true });
    expect(errorOf(await callTool(files, "read_file", { path: `${reports}/other.md` }))).toContain("No file");
  });

  it("a move done again after a restart (same call id) reports success instead of 'no such file'", async () => {
    const [box] = folders("box");
    const files = createFileTools(toolContext({ config: { files: { prefixes: [box] } } }));
    okValue(await callTool(files, "write_file", { path: `${box}/a.txt`, content: "a" }));
    okValue(await callTool(files, "move_file", { from: `${box}/a.txt`, to: `${box}/b.txt` }, "move-1"));
    okValue(await callTool(files, "move_file", { from: `${box}/a.txt`, to: `${box}/b.txt` }, "move-1"));
    expect(errorOf(await callTool(files, "move_file", { from: `${box}/a.txt`, to: `${box}/b.txt` }, "move-2"))).toContain("No file");
  });

  it("edit_file applies exact-once edits all or none", async () => {
    const [docs] = folders("docs");
    const files = createFileTools(toolContext({ config: { files: { prefixes: [docs] } } }));
    okValue(await callTool(files, "write_file", { path: `${docs}/a.md`, content: "one two three two" }));
    expect(
      errorOf(
        await callTool(files, "edit_file", {
          path: `${docs}/a.md`,
          edits: [
            { oldText: "one", newText: "1" },
            { oldText: "two", newText: "2" },
          ],
        }),
      ),
    ).toContain("Edit 2 of 2: oldText occurs 2 times");
    expect(okValue<{ content: string }>(await callTool(files, "read_file", { path: `${docs}/a.md` })).content).toBe("one two three two");
    const edited = okValue(
      await callTool(files, "edit_file", {
        path: `${docs}/a.md`,
        edits: [
          { oldText: "one", newText: "1" },
          { oldText: "two three", newText: "2 3" },
          { oldText: "3 two", newText: "3 II" },
        ],
      }),
    );
    expect(edited).toMatchObject({ applied: 3 });
    expect(okValue<{ content: string }>(await callTool(files, "read_file", { path: `${docs}/a.md` })).content).toBe("1 2 3 II");
    expect(errorOf(await callTool(files, "edit_file", { path: `${docs}/none.md`, edits: [{ oldText: "a", newText: "b" }] }))).toContain("No file");
  });

  it("grep_files finds lines by text or regular expression, within the agent's folders only", async () => {
    const [mine, theirs] = folders("mine", "theirs");
    const files = createFileTools(toolContext({ config: { files: { prefixes: [mine] } } }));
    const other = createFileTools(toolContext({ config: { files: { prefixes: [theirs] } } }));
    okValue(await callTool(files, "write_file", { path: `${mine}/a.txt`, content: "alpha\nBeta\ngamma beta" }));
    okValue(await callTool(files, "write_file", { path: `${mine}/sub/b.txt`, content: "nothing\nbeta again" }));
    okValue(await callTool(other, "write_file", { path: `${theirs}/c.txt`, content: "beta elsewhere" }));
    const plain = okValue<{ matches: { path: string; line: number; text: string }[]; filesSearched: number }>(await callTool(files, "grep_files", { pattern: "beta" }));
    expect(plain.matches).toEqual([
      { path: `${mine}/a.txt`, line: 2, text: "Beta" },
      { path: `${mine}/a.txt`, line: 3, text: "gamma beta" },
      { path: `${mine}/sub/b.txt`, line: 2, text: "beta again" },
    ]);
    expect(plain.filesSearched).toBe(2);
    const regex = okValue<{ matches: { text: string }[] }>(await callTool(files, "grep_files", { pattern: "^b", regex: true, caseSensitive: true }));
    expect(regex.matches.map((match) => match.text)).toEqual(["beta again"]);
    expect(errorOf(await callTool(files, "grep_files", { pattern: "(", regex: true }))).toContain("Invalid regular expression");
    expect(errorOf(await callTool(files, "grep_files", { pattern: "beta", path: theirs }))).toContain("outside your folders");
  });

  it("read-only folders can be read, never written, moved or deleted", async () => {
    const [shelf] = folders("shelf");
    const writer = createFileTools(toolContext({ config: { files: { prefixes: [shelf] } } }));
    okValue(await callTool(writer, "write_file", { path: `${shelf}/book.md`, content: "text" }));
    const reader = createFileTools(toolContext({ config: { files: { prefixes: [shelf], readOnly: true } } }));
    expect(okValue(await callTool(reader, "read_file", { path: `${shelf}/book.md` }))).toMatchObject({ content: "text" });
    for (const [name, input] of [
      ["write_file", { path: `${shelf}/new.md`, content: "x" }],
      ["edit_file", { path: `${shelf}/book.md`, edits: [{ oldText: "text", newText: "y" }] }],
      ["move_file", { from: `${shelf}/book.md`, to: `${shelf}/moved.md` }],
      ["delete_file", { path: `${shelf}/book.md` }],
    ] as const) {
      expect(errorOf(await callTool(reader, name, input)), name).toBe("Your files are read-only");
    }
    expect(await allKeys(`files/${shelf}/`)).toEqual([`files/${shelf}/book.md`]);
  });

  it("size limits hold on the way in and on the way out", async () => {
    const [small] = folders("small");
    const files = createFileTools(toolContext({ config: { files: { prefixes: [small], maxFileBytes: 10 } } }));
    expect(errorOf(await callTool(files, "write_file", { path: `${small}/big.txt`, content: "x".repeat(11) }))).toContain("over the 10-byte limit");
    await env.FILES.put(`files/${small}/huge.txt`, "y".repeat(50));
    expect(errorOf(await callTool(files, "read_file", { path: `${small}/huge.txt` }))).toContain("50 bytes, over the 10-byte limit");
    await env.FILES.put(`files/${small}/bin`, new Uint8Array([0xff, 0xfe, 0x00]));
    expect(errorOf(await callTool(files, "read_file", { path: `${small}/bin` }))).toContain("not UTF-8 text");
    // Overwriting needs no reading: a file too large or not text can be replaced.
    okValue(await callTool(files, "write_file", { path: `${small}/bin`, content: "text now" }));
    okValue(await callTool(files, "write_file", { path: `${small}/huge.txt`, content: "small" }));
    expect(okValue(await callTool(files, "read_file", { path: `${small}/huge.txt` }))).toMatchObject({ content: "small" });
  });

  it.each([
    (folder: string) => `${folder}/../outside.md`,
    (folder: string) => `${folder}/%2e%2e/outside.md`,
    (folder: string) => `${folder}-evil/x.md`,
    (folder: string) => `/${folder}/x.md`,
    (folder: string) => `files/${folder}/x.md`,
    (folder: string) => `${folder}\\..\\x.md`,
    (folder: string) => `${folder}//x.md`,
    (folder: string) => `${folder}/./x.md`,
    (folder: string) => `${folder.toUpperCase()}/x.md`,
    () => "../agents/someone/notes/secret.md",
    () => "x.md",
  ])("a path outside the allowed folders never reads, writes, moves or links (case %#)", async (make) => {
    const [allowed] = folders("allowed");
    const context = toolContext({ config: { files: { prefixes: [allowed] } }, getActiveSpaceId: () => "spc_x", isMemberOf: async () => true });
    const files = createFileTools(context);
    okValue(await callTool(files, "write_file", { path: `${allowed}/ok.md`, content: "fine" }));
    const path = make(allowed);
    for (const [name, input] of [
      ["write_file", { path, content: "x" }],
      ["read_file", { path }],
      ["edit_file", { path, edits: [{ oldText: "a", newText: "b" }] }],
      ["delete_file", { path }],
      ["get_file_info", { path }],
      ["move_file", { from: `${allowed}/ok.md`, to: path }],
      ["move_file", { from: path, to: `${allowed}/ok.md` }],
      ["share_file", { path }],
      ["list_files", { path }],
      ["grep_files", { pattern: "x", path }],
    ] as const) {
      const outcome = await callTool(files, name, input);
      expect(outcome.type, `${name} ${path}`).toBe("error");
    }
    expect(await allKeys(`files/${allowed.split("/")[0]}`)).toEqual([`files/${allowed}/ok.md`]);
  });

  it("a config whose folders are not clean paths is refused when the agent is saved", async () => {
    const { secret } = await import("../../support/api");
    for (const prefixes of [["../up"], ["/abs"], ["a//b"], ["%2e%2e"]]) {
      const { status, body } = await secret<{ error: { details: { path: string }[] } }>("/api/agents", {
        body: { config: { agent: { name: "f" }, model: { provider: "scripted", turns: [] }, builtins: ["files"], files: { prefixes } } },
      });
      expect(status, JSON.stringify(prefixes)).toBe(400);
      expect(body.error.details[0].path).toBe("config.files.prefixes.0");
    }
    const missing = await secret<{ error: { details: { path: string }[] } }>("/api/agents", {
      body: { config: { agent: { name: "f" }, model: { provider: "scripted", turns: [] }, builtins: ["files"] } },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details[0].path).toBe("config.files");
  });
});

describe("signed links to files", () => {
  async function sharedFile() {
    const [outbox] = folders("outbox");
    const member = await createHuman("Member");
    const outsider = await createHuman("Outsider");
    const spaceId = await createSpace([member]);
    const files = createFileTools(toolContext({ config: { files: { prefixes: [outbox] } }, getActiveSpaceId: () => spaceId, isMemberOf: async (id) => id === spaceId }));
    okValue(await callTool(files, "write_file", { path: `${outbox}/report.txt`, content: "the report" }));
    const shared = okValue<{ url: string; expiresAt: string; spaceId: string }>(await callTool(files, "share_file", { path: `${outbox}/report.txt`, expiresInSeconds: 600 }));
    return { outbox, member, outsider, spaceId, files, shared };
  }

  it("a member of the link's space downloads the file (headers or query credentials); so does the secret key", async () => {
    const { member, spaceId, shared } = await sharedFile();
    expect(shared.url).toMatch(/^\/api\/files\/download\?key=files%2F.+&space=spc_.+&expires=\d+&signature=[0-9a-f]{64}$/);
    expect(shared.spaceId).toBe(spaceId);
    expect(Date.parse(shared.expiresAt) - Date.now()).toBeGreaterThan(590_000);
    const withHeaders = await call(shared.url, { headers: await memberHeaders(member) });
    expect(withHeaders.status).toBe(200);
    expect(await withHeaders.text()).toBe("the report");
    expect(withHeaders.headers.get("content-disposition")).toContain('inline; filename="report.txt"');
    expect(withHeaders.headers.get("x-content-type-options")).toBe("nosniff");
    const withQuery = await call(`${shared.url}&publicKey=${env.GATEWAY_PUBLIC_KEY}&token=${await tokenFor(member)}`);
    expect(withQuery.status).toBe(200);
    expect((await call(shared.url, { headers: secretHeaders })).status).toBe(200);
  });

  it("no credentials: 401; a person outside the space: 403; a link changed in any way: 403", async () => {
    const { outsider, member, shared } = await sharedFile();
    expect((await call(shared.url)).status).toBe(401);
    await readErrorEnvelope(await call(shared.url, { headers: await memberHeaders(outsider) }), "forbidden");
    const url = new URL(shared.url, "http://gateway.test");
    for (const [name, value] of [
      ["key", url.searchParams.get("key")?.replace("report", "other") ?? ""],
      ["space", "spc_other"],
      ["expires", String(Number(url.searchParams.get("expires")) + 3600)],
      ["signature", "0".repeat(64)],
    ]) {
      const changed = new URL(url);
      changed.searchParams.set(name, value);
      const response = await call(`${changed.pathname}${changed.search}`, { headers: await memberHeaders(member) });
      expect(response.status, name).toBe(403);
      await readErrorEnvelope(response, "invalid_link");
    }
  });

  it("an expired link is refused with 410, and a file that is gone with 404", async () => {
    const { outbox, member, spaceId, files } = await sharedFile();
    const expired = await signFileLink(env as unknown as Record<string, unknown>, { key: `files/${outbox}/report.txt`, spaceId, seconds: 60, now: Date.now() - 120_000 });
    await readErrorEnvelope(await call(expired.url, { headers: await memberHeaders(member) }), "link_expired");
    const fresh = okValue<{ url: string }>(await callTool(files, "share_file", { path: `${outbox}/report.txt` }));
    okValue(await callTool(files, "delete_file", { path: `${outbox}/report.txt` }));
    expect((await call(fresh.url, { headers: await memberHeaders(member) })).status).toBe(404);
  });

  it("share_file needs a space the agent belongs to, and an existing file", async () => {
    const [outbox] = folders("outbox");
    const files = createFileTools(toolContext({ config: { files: { prefixes: [outbox] } } }));
    okValue(await callTool(files, "write_file", { path: `${outbox}/a.txt`, content: "a" }));
    expect(errorOf(await callTool(files, "share_file", { path: `${outbox}/a.txt` }))).toContain("enter_space");
    expect(errorOf(await callTool(files, "share_file", { path: `${outbox}/a.txt`, spaceId: "spc_nope" }))).toContain("not a member");
  });

  it("HTML is never served inline from the gateway's origin", async () => {
    const member = await createHuman("Member");
    const spaceId = await createSpace([member]);
    await env.FILES.put("files/html-test/page.html", "<script>alert(1)</script>", { httpMetadata: { contentType: "text/html" } });
    const link = await signFileLink(env as unknown as Record<string, unknown>, { key: "files/html-test/page.html", spaceId, seconds: 60 });
    const response = await call(link.url, { headers: await memberHeaders(member) });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toMatch(/^attachment/);
    expect(response.headers.get("content-security-policy")).toContain("sandbox");
  });
});
