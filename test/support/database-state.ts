/**
 * What a failed request must leave untouched: row counts of the core tables
 * (entities, agents, spaces, members, messages), and a space's event seq (read
 * from its SpaceDO).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { EventLog } from "../../src/streams/event-log";

export type RowCounts = { entities: number; agents: number; spaces: number; members: number; messages: number };

export async function countRows(): Promise<RowCounts> {
  const count = (table: keyof RowCounts) => env.DB.prepare(`select count(*) as count from ${table}`);
  const results = await env.DB.batch<{ count: number }>([count("entities"), count("agents"), count("spaces"), count("members"), count("messages")]);
  const [entities, agents, spaces, members, messages] = results.map((result) => result.results[0].count);
  return { entities, agents, spaces, members, messages };
}

/** The last seq the space's object handed out (0 before its first event), read inside the object: no route shows it. */
export async function spaceSeq(spaceId: string): Promise<number> {
  return runInDurableObject(env.SPACE.getByName(spaceId), async (_instance, state) => new EventLog(state.storage.sql).lastSeq);
}
