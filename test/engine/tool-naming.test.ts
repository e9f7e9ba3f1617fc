/** The one naming rule for providers' tools: `{provider}__{tool}`, safe for every model API, long names cut with a hash, collisions named. */
import { describe, expect, it } from "vitest";
import { modelToolNamePattern, providerToolName, sanitizeToolName, ToolNames } from "../../src/tools/engine/tool-naming";

describe("tool naming", () => {
  it("replaces every character a model API refuses with _, and keeps - (every model API the gateway speaks takes it)", () => {
    expect(sanitizeToolName("my.tool")).toBe("my_tool");
    expect(sanitizeToolName("my tool/v2:get")).toBe("my_tool_v2_get");
    expect(sanitizeToolName("café")).toBe("caf_");
    expect(sanitizeToolName("my-tool")).toBe("my-tool");
    expect(sanitizeToolName("")).toBe("_");
    expect(providerToolName("github", "search-code")).toBe("github__search-code");
    expect(providerToolName("my server", "list.items")).toBe("my_server__list_items");
  });

  it("cuts a name past 64 characters to its first 57, _ and 6 characters of a hash of the whole name: stable, and different for names that differ only at the end", () => {
    const long = `provider__${"a".repeat(80)}`;
    const cut = sanitizeToolName(`${long}_one`);
    expect(cut).toHaveLength(64);
    expect(cut.slice(0, 57)).toBe(long.slice(0, 57));
    expect(cut).toMatch(/^.{57}_[0-9a-z]{6}$/);
    expect(sanitizeToolName(`${long}_one`)).toBe(cut);
    expect(sanitizeToolName(`${long}_two`)).not.toBe(cut);
    expect(sanitizeToolName("x".repeat(64))).toBe("x".repeat(64));
    expect(sanitizeToolName("x".repeat(65))).toHaveLength(64);
    for (const name of [cut, sanitizeToolName("x".repeat(65)), providerToolName("a b", "c.d")]) expect(name).toMatch(modelToolNamePattern);
  });

  it("two tools whose names come out the same are a collision naming both", () => {
    const names = new ToolNames();
    expect(names.claim(providerToolName("files", "read.me"), { provider: "files", tool: "read.me" })).toEqual({ ok: true });
    const second = names.claim(providerToolName("files", "read_me"), { provider: "files", tool: "read_me" });
    expect(second).toMatchObject({ ok: false, message: 'The name "files__read_me" of tool "read_me" of provider "files" is already taken by tool "read.me" of provider "files"' });
  });
});
