/**
 * What a standard OpenAPI linter (redocly, recommended rules) asks of every
 * operation, checked on the served document: a summary and a unique
 * operationId (inline in the route, or from src/api/operation-names.ts), and
 * no stale entry in that table.
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
  // Every table entry names an operation that exists, and the name it gives is the one in the document.
  for (const [key, name] of Object.entries(operationNames)) {
    expect(keys, `stale entry in src/api/operation-names.ts: ${key}`).toContain(key);
    const [method, path] = key.split(" ");
    expect(document.paths[path][method], key).toMatchObject(name);
  }
  expect(document.servers).toEqual([expect.objectContaining({ url: "/" })]);
});
