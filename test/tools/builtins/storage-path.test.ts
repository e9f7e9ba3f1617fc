import { describe, expect, it } from "vitest";
import { checkFilePath, checkFolderPath, isInside } from "../../../src/security/storage-path";

describe("the one path rule for R2 keys a model names", () => {
  it("accepts plain relative paths, normalised to NFC", () => {
    expect(checkFilePath("reports/q3.md")).toEqual({ ok: true, path: "reports/q3.md" });
    expect(checkFilePath("notes/Zoë (draft) v2.md")).toEqual({ ok: true, path: "notes/Zoë (draft) v2.md" });
    expect(checkFilePath("cafe\u0301.md")).toEqual({ ok: true, path: "café.md" });
    expect(checkFolderPath("reports/")).toEqual({ ok: true, path: "reports" });
    expect(checkFolderPath("")).toEqual({ ok: true, path: "" });
  });

  it.each([
    ["..", "dot segment"],
    ["../other/notes/x.md", "parent"],
    ["a/../../b", "parent in the middle"],
    ["a/./b", "current-folder segment"],
    ["./a", "leading ./"],
    ["a/...", "only dots"],
    ["/etc/passwd", "absolute"],
    ["//x", "absolute, doubled"],
    ["a//b", "empty segment"],
    ["a\\..\\b", "backslashes"],
    ["%2e%2e/x", "percent-encoded dots"],
    ["..%2fx", "percent-encoded slash"],
    ["a%00b", "percent-encoded NUL"],
    ["a\u0000b", "NUL"],
    ["a\nb", "newline"],
    ["\u202egnp.exe", "right-to-left override"],
    ["a\u200b/b", "zero-width space"],
    ["\uff0e\uff0e/x", "fullwidth dots"],
    ["a\uff0fb", "fullwidth solidus"],
    ["a\u2215b", "division slash"],
    ["\u2025/x", "two-dot leader"],
    ["C:/x", "drive letter"],
    [" a", "leading space"],
    ["a /b", "trailing space in a segment"],
    ["x".repeat(513), "too long"],
    [Array.from({ length: 33 }, () => "a").join("/"), "too deep"],
    ["", "empty"],
  ])("refuses %j (%s)", (raw) => {
    const checked = checkFilePath(raw);
    expect(checked.ok).toBe(false);
  });

  it("refuses a file path that names a folder, and anything that is not a string", () => {
    expect(checkFilePath("reports/").ok).toBe(false);
    expect(checkFilePath(42).ok).toBe(false);
    expect(checkFilePath(undefined).ok).toBe(false);
  });

  it("a prefix holds its own files, never a sibling that starts the same way", () => {
    expect(isInside("reports/a.md", "reports")).toBe(true);
    expect(isInside("reports", "reports")).toBe(true);
    expect(isInside("reports-old/a.md", "reports")).toBe(false);
    expect(isInside("REPORTS/a.md", "reports")).toBe(false);
    expect(isInside("report", "reports")).toBe(false);
  });
});
