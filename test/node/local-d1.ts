/**
 * One SQL statement run on the shared dev server's local D1 with `wrangler d1
 * execute --local`, for rows no route writes (a dead letter after 28 hours of
 * retries, a connected account). The dev server and other test files write
 * to the same SQLite file at the same time, so a statement can find it locked
 * (`SQLITE_BUSY`): that, and only that, is tried again, a bounded number of
 * times with a growing pause; any other failure throws at once with
 * wrangler's output.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { setTimeout as pause } from "node:timers/promises";
import { gateway } from "./gateway";

const root = join(import.meta.dirname, "..", "..");
const attempts = 8;

type Ran = { code: number; output: string; stdout: string };

function wranglerExecute(sql: string, json = false): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        join(root, "node_modules", "wrangler", "bin", "wrangler.js"),
        "d1",
        "execute",
        "DB",
        "--local",
        "--persist-to",
        gateway.stateDir,
        "--command",
        sql,
        ...(json ? ["--json"] : []),
      ],
      {
        cwd: root,
        env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
        encoding: "utf8",
        timeout: 60_000,
      },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, output: `${stdout}\n${stderr}`, stdout }),
    );
  });
}

/** Runs `sql`; `what` names it in the error ("store the connection"). */
export async function executeLocalD1(sql: string, what: string): Promise<void> {
  await runLocalD1(sql, what, false);
}

/** The rows `sql` (one SELECT) reads. */
export async function queryLocalD1<Row>(sql: string, what: string): Promise<Row[]> {
  const output = await runLocalD1(sql, what, true);
  // Wrangler prints one JSON array of statement results; anything before it (a banner) is skipped.
  const parsed: unknown = JSON.parse(output.slice(Math.max(0, output.indexOf("["))));
  const first = Array.isArray(parsed) ? (parsed[0] as { results?: Row[] } | undefined) : undefined;
  if (!first?.results) throw new Error(`could not ${what}: wrangler printed no results:\n${output}`);
  return first.results;
}

async function runLocalD1(sql: string, what: string, json: boolean): Promise<string> {
  let ran: Ran = { code: 1, output: "", stdout: "" };
  for (let attempt = 1; attempt <= attempts; attempt++) {
    ran = await wranglerExecute(sql, json);
    if (ran.code === 0) return ran.stdout;
    if (!ran.output.includes("SQLITE_BUSY")) break;
    // The lock is held for one statement of someone else's: 0.25 s, 0.5 s, 1 s … 4 s at most, about 20 s in all.
    await pause(Math.min(4_000, 250 * 2 ** (attempt - 1)));
  }
  throw new Error(`could not ${what}:\n${ran.output}`);
}
