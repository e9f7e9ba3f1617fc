/**
 * What a standard OpenAPI linter (redocly, recommended rules) asks of every
 * operation, checked on the served document: a summary and a unique
 * operationId from src/api/operation-names.ts, and no stale entry there.
 */
import { expect, it } from "vitest";
import { operationNames } from "../src/api/operation-names";
import { call } from "./support/api";

type Operation = { operationId?: string; summary?: string };

it("every operation has a summary and a unique operationId, and the names table has no stale entry", async () => {
  const document = (await (await call("/openapi.json")).json()) as { paths: Record<string, Record<string, Operation>>; servers?: { url: string }[] };
  const keys: string[] = [];
  const operationIds: string[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      keys.push(`${method} ${path}`);
      expect(operation.summary, `${method} ${path}`).toBeTruthy();
      expect(operation.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z]+$/);
      operationIds.push(operation.operationId as string);
    }
  }
  expect(new Set(operationIds).size).toBe(operationIds.length);
  expect(Object.keys(operationNames).sort()).toEqual(keys.sort());
  expect(document.servers).toEqual([expect.objectContaining({ url: "/" })]);
});
