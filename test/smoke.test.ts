import { env } from "cloudflare:workers";
import { expect, it } from "vitest";

it("the database has the platform tables", async () => {
  const tables = await env.DB.prepare("select name from sqlite_master where type='table'").all<{ name: string }>();
  expect(tables.results.map((row) => row.name)).toContain("messages");
});
