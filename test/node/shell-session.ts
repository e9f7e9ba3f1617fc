/**
 * One bash, kept between blocks, as a reader keeps one terminal: each block is
 * sourced into it, so the variables a block sets (an agent's id, a PID) are
 * there for the next. `set -u` makes a variable nobody set an error instead
 * of an empty string. A block's status is its last command's, as in a
 * terminal; a command that fails before it is told on stderr (an ERR trap:
 * `commandFailed`), as a terminal shows it, so a failure mid-block is seen
 * too. Background processes a block starts (`node server.mjs &`) live in
 * the session's process group and end with it.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";

export type BlockRun = { status: number; stdout: string; stderr: string; timedOut: boolean };

/** How the session tells a failed command on stderr: `command failed (status 7): curl …`. */
export const commandFailed = "command failed (status";

export class ShellSession {
  private readonly shell: ChildProcessByStdio<Writable, Readable, Readable>;
  private readonly scripts = mkdtempSync(join(tmpdir(), "switchboard-shell-"));
  private stdout = "";
  private stderr = "";
  private ended = false;
  private count = 0;
  private readonly exited: Promise<void>;
  private notify: () => void = () => {};

  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.shell = spawn("bash", ["--noprofile", "--norc"], { cwd, env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    this.shell.stdout.setEncoding("utf8").on("data", (chunk: string) => ((this.stdout += chunk), this.notify()));
    this.shell.stderr.setEncoding("utf8").on("data", (chunk: string) => ((this.stderr += chunk), this.notify()));
    this.exited = new Promise((resolve) =>
      this.shell.once("exit", () => {
        this.ended = true;
        this.notify();
        resolve();
      }),
    );
    this.shell.stdin.write(`set -u\ntrap 'printf "%s\\n" "${commandFailed} $?): $BASH_COMMAND" >&2' ERR\n`);
  }

  /** Sources `code` (stdin from /dev/null, as a pasted block has no input), waits for it up to `timeoutMs`. */
  async run(code: string, timeoutMs: number): Promise<BlockRun> {
    if (this.ended) return { status: -1, stdout: "", stderr: "the session ended before this block (a block before it failed or exited)", timedOut: false };
    const file = join(this.scripts, `block-${++this.count}.sh`);
    writeFileSync(file, `${code}\n`);
    const sentinel = `__block_${this.count}_done__`;
    this.stdout = "";
    this.stderr = "";
    this.shell.stdin.write(`source '${file}' < /dev/null; printf '\\n${sentinel} %d\\n' "$?"; printf '\\n${sentinel}\\n' >&2\n`);
    const finished = new RegExp(`\\n${sentinel} (\\d+)\\n`);
    const result = await new Promise<{ status: number; timedOut: boolean }>((resolve) => {
      const timer = setTimeout(() => resolve({ status: -1, timedOut: true }), timeoutMs);
      this.notify = () => {
        const status = finished.exec(this.stdout)?.[1];
        if (status !== undefined && this.stderr.includes(`\n${sentinel}\n`)) {
          clearTimeout(timer);
          resolve({ status: Number(status), timedOut: false });
        } else if (this.ended) {
          clearTimeout(timer);
          resolve({ status: -1, timedOut: false });
        }
      };
      this.notify();
    });
    this.notify = () => {};
    const stdout = this.stdout.split(`\n${sentinel} `)[0];
    const stderr = this.stderr.split(`\n${sentinel}\n`)[0] + (this.ended && !result.timedOut ? "\n(the shell exited: a block called exit, or used a variable nobody set)" : "");
    if (result.timedOut) await this.close();
    return { ...result, stdout, stderr };
  }

  /** Ends the shell and everything it started (its process group, background servers included). */
  async close(): Promise<void> {
    const group = this.shell.pid;
    const signal = (name: NodeJS.Signals) => {
      try {
        if (group) process.kill(-group, name);
      } catch {
        // the group is gone
      }
    };
    signal("SIGTERM");
    if (!this.ended) await Promise.race([this.exited, new Promise((resolve) => setTimeout(resolve, 3_000))]);
    signal("SIGKILL");
    rmSync(this.scripts, { recursive: true, force: true });
  }
}
