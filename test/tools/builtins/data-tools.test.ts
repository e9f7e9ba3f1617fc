import { describe, expect, it } from "vitest";
import { parseCsv, toCsv } from "../../../src/tools/builtins/csv";
import { createDataTools } from "../../../src/tools/builtins/data-tools";
import { maxProducedCharacters, runJsonQuery } from "../../../src/tools/builtins/json-query";
import { callTool, defaultLimits, errorOf, okValue, toolContext } from "../../support/catalogue";

const data = createDataTools(toolContext());

describe("data tools", () => {
  it("json_query runs JMESPath (community edition) on a value or on JSON text", async () => {
    const people = {
      people: [
        { name: "Ada", age: 36, team: "core" },
        { name: "Grace", age: 45, team: "core" },
        { name: "Linus", age: 28, team: "edge" },
      ],
    };
    expect(okValue(await callTool(data, "json_query", { data: people, expression: "people[?age > `30`].name" }))).toEqual({ result: ["Ada", "Grace"] });
    expect(okValue(await callTool(data, "json_query", { json: JSON.stringify(people), expression: "sort_by(people, &age)[0].name" }))).toEqual({ result: "Linus" });
    expect(okValue(await callTool(data, "json_query", { data: people, expression: "group_by(people, &team).core[*].name" }))).toEqual({ result: ["Ada", "Grace"] });
    expect(okValue(await callTool(data, "json_query", { data: people, expression: "let $n = length(people) in {count: $n, names: join(', ', people[*].name)}" }))).toEqual({
      result: { count: 3, names: "Ada, Grace, Linus" },
    });
    expect(okValue(await callTool(data, "json_query", { data: people, expression: "missing" }))).toEqual({ result: null });
    expect(errorOf(await callTool(data, "json_query", { data: people, expression: "people[?" }))).toContain("Invalid JMESPath expression");
    expect(errorOf(await callTool(data, "json_query", { json: "{nope", expression: "a" }))).toContain("not valid JSON");
    expect(errorOf(await callTool(data, "json_query", { json: '{"__proto__": {"x": 1}}', expression: "a" }))).toContain("__proto__");
    expect(errorOf(await callTool(data, "json_query", { expression: "a" }))).toContain("Give the JSON");
  });

  it("json_query cannot build strings or results past its budget, however the functions are nested", () => {
    const bomb = `replace(replace(replace(replace(replace(replace(replace(s, 'a', 'aaaaaaaaaa'), 'a', 'aaaaaaaaaa'), 'a', 'aaaaaaaaaa'), 'a', 'aaaaaaaaaa'), 'a', 'aaaaaaaaaa'), 'a', 'aaaaaaaaaa'), 'a', 'aaaaaaaaaa')`;
    expect(runJsonQuery({ s: "aaaa" }, bomb, 1_000_000)).toMatchObject({ ok: false, error: expect.stringContaining(`${maxProducedCharacters} characters`) });
    expect(runJsonQuery({ s: "a" }, "pad_left(s, `100000000`)", 1_000_000)).toMatchObject({ ok: false, error: expect.stringContaining("pads to at most") });
    const many = { items: Array.from({ length: 2_000 }, (_, index) => ({ index, text: "x".repeat(100) })) };
    const tenTimes = `[${Array.from({ length: 10 }, () => "items").join(", ")}]`;
    expect(runJsonQuery(many, tenTimes, 1_000_000)).toMatchObject({ ok: false, error: expect.stringContaining("larger than") });
    expect(runJsonQuery(many, `to_string(${tenTimes})`, 10_000_000)).toMatchObject({ ok: false, error: expect.stringContaining("to_string would build") });
    // The budget is per evaluation: a normal query afterwards is fine.
    expect(runJsonQuery({ s: "abc" }, "upper(s)", 1_000)).toEqual({ ok: true, value: "ABC" });
  });

  it("base64 both ways, UTF-8 and base64url, and refuses what is not base64 or not text", async () => {
    expect(okValue(await callTool(data, "base64_encode", { text: "héllo ✓" }))).toEqual({ encoded: "aMOpbGxvIOKckw==" });
    expect(okValue(await callTool(data, "base64_encode", { text: "héllo ✓", urlSafe: true }))).toEqual({ encoded: "aMOpbGxvIOKckw" });
    expect(okValue(await callTool(data, "base64_decode", { encoded: "aMOpbGxvIOKckw" }))).toEqual({ text: "héllo ✓", decoded: "héllo ✓", bytes: 10 });
    expect(errorOf(await callTool(data, "base64_decode", { encoded: "not base64!" }))).toBe("Not valid base64");
    expect(errorOf(await callTool(data, "base64_decode", { encoded: "//79" }))).toContain("not UTF-8 text (hex: fffefd)");
  });

  it("json_parse and json_stringify: the catalogue's {text} → {data} and {data, pretty} → {text}, by the gateway's safe JSON rules", async () => {
    expect(okValue(await callTool(data, "json_parse", { text: '{"a": [1, "two", null]}' }))).toEqual({ data: { a: [1, "two", null] } });
    expect(errorOf(await callTool(data, "json_parse", { text: "{nope" }))).toContain("not valid JSON");
    expect(errorOf(await callTool(data, "json_parse", { text: '{"__proto__": {"x": 1}}' }))).toContain("__proto__");
    expect(errorOf(await callTool(data, "json_parse", { text: `${"[".repeat(200)}${"]".repeat(200)}` }))).toMatch(/deep/i);
    expect(okValue(await callTool(data, "json_stringify", { data: { a: [1, 2] } }))).toEqual({ text: '{"a":[1,2]}' });
    expect(okValue(await callTool(data, "json_stringify", { data: { a: 1 }, pretty: true }))).toEqual({ text: '{\n  "a": 1\n}' });
    const small = createDataTools(toolContext({ config: { limits: { ...defaultLimits, toolResponseMaxBytes: 100 } } }));
    expect(errorOf(await callTool(small, "json_stringify", { data: { text: "x".repeat(200) } }))).toContain("larger than 100 bytes");
  });

  it("hash: SHA-256 by default, other algorithms, base64, and HMAC", async () => {
    expect(okValue(await callTool(data, "hash", { text: "abc" }))).toEqual({
      hash: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
      algorithm: "SHA-256",
      encoding: "hex",
    });
    expect(okValue(await callTool(data, "hash", { text: "abc", algorithm: "MD5" }))).toMatchObject({ hash: "900150983cd24fb0d6963f7d28e17f72" });
    expect(okValue(await callTool(data, "hash", { text: "abc", algorithm: "SHA-1", encoding: "base64" }))).toMatchObject({ hash: "qZk+NkcGgWq6PiVxeFDCbJzQ2J0=" });
    expect(okValue(await callTool(data, "hash", { text: "The quick brown fox jumps over the lazy dog", hmacKey: "key" }))).toMatchObject({
      hash: "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8",
      hmac: true,
    });
    expect(errorOf(await callTool(data, "hash", { text: "abc", algorithm: "MD5", hmacKey: "k" }))).toContain("not offered with MD5");
  });

  it("uuid: version 4 or 7 (time-ordered)", async () => {
    const v4 = okValue<{ uuids: string[] }>(await callTool(data, "uuid", { count: 3 })).uuids;
    expect(v4).toHaveLength(3);
    for (const id of v4) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const v7 = okValue<{ uuids: string[] }>(await callTool(data, "uuid", { count: 2, version: 7 })).uuids;
    for (const id of v7) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(v7[0].replaceAll("-", "").slice(0, 12), 16)).toBeLessThanOrEqual(Date.now());
    expect(parseInt(v7[0].replaceAll("-", "").slice(0, 12), 16)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("csv_to_json and json_to_csv: quotes, embedded delimiters and line breaks, round trip", async () => {
    const csv = 'name,notes,age\r\nAda,"likes ""tea"", cake",36\nGrace,"line one\nline two",45\n';
    expect(okValue(await callTool(data, "csv_to_json", { csv }))).toEqual({
      columns: ["name", "notes", "age"],
      rows: [
        { name: "Ada", notes: 'likes "tea", cake', age: "36" },
        { name: "Grace", notes: "line one\nline two", age: "45" },
      ],
      rowCount: 2,
    });
    expect(okValue(await callTool(data, "csv_to_json", { csv: "a;b\n1;2", delimiter: ";", header: false }))).toEqual({
      rows: [
        ["a", "b"],
        ["1", "2"],
      ],
      rowCount: 2,
    });
    expect(errorOf(await callTool(data, "csv_to_json", { csv: 'a,"open' }))).toContain("never closed");
    const back = okValue<{ csv: string }>(
      await callTool(data, "json_to_csv", {
        rows: [
          { name: "Ada", notes: 'likes "tea", cake', extra: { n: 1 } },
          { name: "Grace", age: 45 },
        ],
      }),
    );
    expect(back.csv).toBe('name,notes,extra,age\r\nAda,"likes ""tea"", cake","{""n"":1}",\r\nGrace,,,45');
    const parsed = parseCsv(back.csv);
    expect(parsed.ok && parsed.rows[1]).toEqual(["Ada", 'likes "tea", cake', '{"n":1}', ""]);
    expect(
      toCsv(
        [
          [1, "a,b"],
          [2, null],
        ],
        { columns: ["n", "v"] },
      ),
    ).toBe('n,v\r\n1,"a,b"\r\n2,');
  });
});
