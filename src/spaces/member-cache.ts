/**
 * Who is in the space, kept by its SpaceDO so a message is checked and its
 * agents woken without a D1 read: the space row and its members (entity type,
 * name, agent id) in one batch, read once, then again after every join or
 * leave the object sees (membership changes always pass through it: the
 * routes emit `space.member.joined` / `left` there), and at most a minute
 * later for anything else (an entity renamed).
 */
import { eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { agents, entities, members, spaces } from "../db/schema";

export type Member = { entityId: string; type: "human" | "agent" | "service"; name: string; agentId?: string };
export type SpaceMembers = { space: { id: string; name: string } | undefined; byEntity: Map<string, Member> };

const maxAgeMs = 60_000;

export class MemberCache {
  #loaded: { at: number; members: SpaceMembers } | undefined;
  /** Bumped by every invalidation: a read that started before one is not kept. */
  #generation = 0;

  constructor(
    private readonly load: () => Database,
    private readonly spaceId: () => string,
  ) {}

  invalidate(): void {
    this.#loaded = undefined;
    this.#generation += 1;
  }

  async get(): Promise<SpaceMembers> {
    if (this.#loaded && Date.now() - this.#loaded.at < maxAgeMs) return this.#loaded.members;
    const generation = this.#generation;
    const at = Date.now();
    const members = await this.#read();
    if (generation === this.#generation) this.#loaded = { at, members };
    return members;
  }

  async #read(): Promise<SpaceMembers> {
    const database = this.load();
    const spaceId = this.spaceId();
    const [spaceRows, memberRows] = await database.batch([
      database.select({ id: spaces.id, name: spaces.name }).from(spaces).where(eq(spaces.id, spaceId)).limit(1),
      database
        .select({ entityId: members.entityId, type: entities.type, name: entities.name, agentId: agents.id })
        .from(members)
        .innerJoin(entities, eq(members.entityId, entities.id))
        .leftJoin(agents, eq(members.entityId, agents.entityId))
        .where(eq(members.spaceId, spaceId)),
    ]);
    const byEntity = new Map<string, Member>();
    for (const row of memberRows) byEntity.set(row.entityId, { entityId: row.entityId, type: row.type, name: row.name, ...(row.agentId && { agentId: row.agentId }) });
    return { space: spaceRows[0], byEntity };
  }
}
