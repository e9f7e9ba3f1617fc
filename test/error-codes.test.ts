/**
 * One list of error codes (`errorCodes` in src/errors.ts): the OpenAPI
 * document's `ErrorCode` enum is generated from it (test/openapi.test.ts),
 * the client SDK's `GatewayErrorCode` from that document, and docs/api.md's
 * table of errors must name exactly these codes, each once.
 */
import { expect, it } from "vitest";
import apiDocs from "../docs/api.md?raw";
import { errorCodes } from "../src/errors";

/** The codes in the second column of the table under docs/api.md's "## Errors" (its rows after the header). */
function documentedCodes(markdown: string): string[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith("Errors\n")) ?? "";
  const rows = section
    .split("\n")
    .filter((line) => line.startsWith("| "))
    .slice(1);
  return rows.flatMap((row) => [...(row.split("|")[2] ?? "").matchAll(/`([a-z_]+)`/g)].map((match) => match[1]));
}

it("docs/api.md's table of errors lists exactly the codes the gateway answers with", () => {
  const documented = documentedCodes(apiDocs);
  expect(documented.length).toBeGreaterThan(0);
  expect(new Set(documented).size, "each code once").toBe(documented.length);
  expect([...documented].sort()).toEqual([...errorCodes].sort());
});

it("the list has no code twice, and every code is snake_case", () => {
  expect(new Set(errorCodes).size).toBe(errorCodes.length);
  for (const code of errorCodes) expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
});
