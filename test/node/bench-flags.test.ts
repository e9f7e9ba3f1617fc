/**
 * `npm run bench` refuses a command line it cannot run before it starts
 * anything: an unknown flag, a count that is not one, an `--only` naming no
 * module. Each answer is a sentence and the usage on stderr with exit code 2,
 * never a stack trace, and never a run of nothing that says all finished.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const modules = ["startup", "space-fanout", "agent-cycle", "tool-roundtrip", "mcp-overhead", "peers", "patterns"];

/** Runs the bench with `args`; a refusal takes well under a second, so the deadline only matters if it starts a server. */
function bench(...args: string[]) {
  const result = spawnSync(process.execPath, ["bench/run.mjs", ...args], { cwd: root, encoding: "utf8", timeout: 20_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function expectRefused(result: ReturnType<typeof bench>, problem: string) {
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(problem);
  expect(result.stderr).toContain("usage: npm run bench -- [--only a,b]");
  // No stack trace, and nothing ran: no server, no module, no "all modules finished".
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stdout).toBe("");
}

describe("npm run bench's command line", () => {
  it("refuses an unknown flag with the usage, exit 2", () => {
    expectRefused(bench("--bogus"), "Unknown option '--bogus'");
  });

  it("refuses --only naming no module, and names the unknown ones and every module there is", () => {
    const result = bench("--only", "nosuch");
    expectRefused(result, "--only names no module called nosuch;");
    for (const name of modules) expect(result.stderr).toContain(name);
    // One unknown name among known ones still refuses the whole run, naming only the unknown.
    expectRefused(bench("--only", "patterns,nosuch,other"), "--only names no module called nosuch, other;");
    expectRefused(bench("--only", ","), "--only names no module;");
  });

  it("refuses a count that is not a whole number, or a size list with a 0", () => {
    expectRefused(bench("--cycles", "abc"), '--cycles takes a whole number above 0, not "abc"');
    expectRefused(bench("--sizes", "10,0"), '--sizes takes client counts above 0, comma-separated (10,100,500), not "10,0"');
    expectRefused(bench("--burst-calls", "21"), "--burst-calls takes 1 to 20");
  });

  it("prints the usage on --help, exit 0", () => {
    const result = bench("--help");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("usage: npm run bench -- [--only a,b]");
  });
});
