/** What every command gets: the local setup, the flags, the terminal, and clients made from them. */
import { Switchboard, signToken } from "../../client/src/index";
import { requireDemo, requireVar, type LocalSetup } from "./local-setup";

export type Flags = {
  url?: string;
  "dev-vars"?: string;
  "state-dir"?: string;
  space?: string;
  as?: string;
  live?: boolean;
  json?: boolean;
  "after-seq"?: string;
  limit?: string;
  type?: string;
  "expires-in"?: string;
  name?: string;
  entity?: string;
  /** `accounts connect --agent`: the agent whose own account an operator connects, and where (one of tool, server, provider). */
  agent?: string;
  tool?: string;
  server?: string;
  provider?: string;
  help?: boolean;
};

export type CliIo = { out: (text: string) => void; err: (text: string) => void; cwd: string; env: Record<string, string | undefined>; signal?: AbortSignal; colors?: boolean };

/** A mistake in how the command was called: exit code 2, with the usage. */
export class UsageError extends Error {}

export class CommandContext {
  constructor(
    readonly setup: LocalSetup,
    readonly flags: Flags,
    readonly io: CliIo,
  ) {}

  /** The secret-key client. */
  admin(): Switchboard {
    return new Switchboard({ baseUrl: this.setup.baseUrl, secretKey: requireVar(this.setup, "GATEWAY_SECRET_KEY") });
  }

  /** `--as`: the entity to act as (`person` is the demo person); undefined without `--as`. */
  actingAs(): string | undefined {
    const as = this.flags.as;
    if (!as) return undefined;
    return as === "person" ? requireDemo(this.setup, "--as <entityId>").personId : as;
  }

  async token(entityId: string, expiresIn: string | number = "1h"): Promise<string> {
    return signToken(entityId, { secret: requireVar(this.setup, "JWT_SECRET"), expiresIn });
  }

  /** A client acting as `entityId` (public key + a fresh JWT). */
  async member(entityId: string): Promise<Switchboard> {
    const token = await this.token(entityId);
    return new Switchboard({ baseUrl: this.setup.baseUrl, publicKey: requireVar(this.setup, "GATEWAY_PUBLIC_KEY"), token });
  }

  /** `--as` given: that entity's client; otherwise the secret key. */
  async client(): Promise<Switchboard> {
    const entityId = this.actingAs();
    return entityId ? this.member(entityId) : this.admin();
  }

  space(positional?: string): string {
    return positional ?? this.flags.space ?? requireDemo(this.setup, "a space id (--space spc_…)").spaceId;
  }

  json(value: unknown): void {
    this.io.out(`${JSON.stringify(value, null, 2)}\n`);
  }

  table(rows: Record<string, unknown>[], columns: string[]): void {
    if (this.flags.json) {
      this.json(rows);
      return;
    }
    if (rows.length === 0) {
      this.io.out("(none)\n");
      return;
    }
    const cell = (value: unknown) => (value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value));
    const widths = columns.map((column) => Math.min(60, Math.max(column.length, ...rows.map((row) => cell(row[column]).length))));
    const line = (values: string[]) =>
      values
        .map((value, index) => value.slice(0, 60).padEnd(widths[index]))
        .join("  ")
        .trimEnd();
    this.io.out(`${line(columns)}\n${rows.map((row) => line(columns.map((column) => cell(row[column])))).join("\n")}\n`);
  }
}
