/**
 * SpaceDO: one per space. Owns the space's live connections and hands every
 * event the next gap-free `seq`. Messages are written to D1 (with their seq)
 * before they are broadcast. All emissions go through one queue so a message
 * waiting on D1 never lets a later event take its seq.
 */
import { DurableObject } from "cloudflare:workers";
import { getDatabase } from "../db/client";
import { findMessageBySeq, getMessage, insertMessage, updateMessageParts } from "../db/messages";
import type { AppEnv } from "../env";
import { createId } from "../ids";
import { ConnectionHub } from "../streams/connection-hub";
import { EventLog } from "../streams/event-log";
import { fullMessage, type Message, type MessageRole, redactMessage, type ToolCallPart } from "./message";
import type { SpaceEventInput } from "./space-event";

export type NewMessage = {
  /** Optional: lets a caller name the message before it exists (streamed replies, tool cards). */
  id?: string;
  entityId: string;
  role: MessageRole;
  text?: string;
  parts?: ToolCallPart[];
  mentions?: string[];
  status?: string;
};

export const spaceIdHeader = "x-switchboard-space-id";

export class SpaceDO extends DurableObject<AppEnv> {
  readonly #log: EventLog;
  readonly #hub: ConnectionHub;
  #queue: Promise<unknown> = Promise.resolve();
  #spaceId: string | undefined;
  #recovered: Promise<void> | undefined;

  constructor(ctx: DurableObjectState, env: AppEnv) {
    super(ctx, env);
    this.#log = new EventLog(ctx.storage.sql);
    this.#hub = new ConnectionHub(ctx);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS space_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    const row = ctx.storage.sql.exec<{ value: string }>("SELECT value FROM space_meta WHERE key = 'space_id'").toArray()[0];
    this.#spaceId = row?.value;
  }

  /** Persists a message to D1, then broadcasts it as `space.message`. */
  postMessage(spaceId: string, input: NewMessage): Promise<Message> {
    return this.#serialize(async () => {
      this.#remember(spaceId);
      const now = new Date().toISOString();
      const message: Message = {
        id: input.id ?? createId("msg"),
        spaceId,
        seq: this.#log.nextSeq,
        entityId: input.entityId,
        role: input.role,
        status: input.status ?? "complete",
        createdAt: now,
      };
      if (input.text !== undefined) message.text = input.text;
      if (input.parts !== undefined) message.parts = input.parts;
      if (input.mentions !== undefined && input.mentions.length > 0) message.mentions = input.mentions;
      // D1 first: if this throws, the seq was never used and nothing was broadcast.
      const database = getDatabase(this.env.DB);
      if (!(await insertMessage(database, message))) {
        // This id is already stored (a retried post: an Idempotency-Key, a reply done again after
        // a restart). It keeps its seq and its one broadcast; the caller gets it back as it is.
        const existing = await getMessage(database, message.id);
        if (!existing || existing.spaceId !== spaceId) throw new Error(`Message id "${message.id}" is taken`);
        return fullMessage(existing);
      }
      this.#emitNow(spaceId, { type: "space.message", data: fullMessage(message), publicData: redactMessage(message) }, now);
      return fullMessage(message);
    });
  }

  /**
   * Replaces a tool message's parts and status in D1, then broadcasts
   * `space.message.updated`. `update` sees the current parts.
   */
  updateToolPart(spaceId: string, messageId: string, toolCallId: string, changes: Partial<ToolCallPart>, status?: string): Promise<Message | undefined> {
    return this.#serialize(async () => {
      this.#remember(spaceId);
      const database = getDatabase(this.env.DB);
      const current = await getMessage(database, messageId);
      if (!current?.parts) return undefined;
      const parts = current.parts.map((part) => (part.toolCallId === toolCallId ? { ...part, ...changes } : part));
      // Settling a card twice (a transition finished again after a restart) changes nothing and says nothing.
      if (JSON.stringify(parts) === JSON.stringify(current.parts) && (status ?? current.status) === current.status) return fullMessage(current);
      const updatedAt = new Date().toISOString();
      const nextStatus = status ?? current.status;
      await updateMessageParts(database, messageId, { parts, status: nextStatus, updatedAt });
      const message: Message = { ...current, parts, status: nextStatus, updatedAt };
      this.#emitNow(spaceId, { type: "space.message.updated", data: fullMessage(message), publicData: redactMessage(message) }, updatedAt);
      return fullMessage(message);
    });
  }

  /** Emits an event that is not a persisted message (streaming, membership, cycles, tools). */
  emit(spaceId: string, event: SpaceEventInput): Promise<number> {
    return this.#serialize(async () => {
      this.#remember(spaceId);
      return this.#emitNow(spaceId, event, new Date().toISOString());
    });
  }

  /** Emits several events in order (one RPC for a burst of stream deltas). */
  emitMany(spaceId: string, events: SpaceEventInput[]): Promise<number> {
    return this.#serialize(async () => {
      this.#remember(spaceId);
      let seq = this.#log.lastSeq;
      for (const event of events) seq = this.#emitNow(spaceId, event, new Date().toISOString());
      return seq;
    });
  }

  /** A member left: broadcast it, then close that entity's connections. */
  removeMember(spaceId: string, entityId: string): Promise<void> {
    return this.#serialize(async () => {
      this.#remember(spaceId);
      this.#emitNow(spaceId, { type: "space.member.left", data: { entityId } }, new Date().toISOString());
      this.#hub.closeEntity(entityId, "removed from the space");
    });
  }

  lastSeq(): number {
    return this.#log.lastSeq;
  }

  override fetch(request: Request): Response {
    const spaceId = request.headers.get(spaceIdHeader);
    if (spaceId) this.#remember(spaceId);
    return this.#hub.serve(request, this.#log);
  }

  override webSocketMessage(socket: WebSocket, message: string | ArrayBuffer): void {
    this.#hub.handleClientFrame(socket, message);
  }

  override webSocketClose(socket: WebSocket, code: number, reason: string): void {
    this.#hub.handleClose(socket, code, reason);
  }

  override webSocketError(): void {
    // The runtime closes the socket; nothing to clean up.
  }

  #emitNow(spaceId: string, event: SpaceEventInput, at: string): number {
    const { frame, publicFrame, seq } = this.#log.append({ spaceId, type: event.type, at, data: event.data }, event.publicData);
    this.#hub.broadcast(seq, frame, publicFrame);
    return seq;
  }

  #serialize<T>(task: () => Promise<T>): Promise<T> {
    const guarded = async () => {
      this.#recovered ??= this.#recover().catch((error: unknown) => {
        this.#recovered = undefined;
        throw error;
      });
      await this.#recovered;
      return task();
    };
    const run = this.#queue.then(guarded, guarded);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #remember(spaceId: string): void {
    if (this.#spaceId === spaceId) return;
    this.#spaceId = spaceId;
    this.ctx.storage.sql.exec(
      "INSERT INTO space_meta (key, value) VALUES ('space_id', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      spaceId,
    );
  }

  /**
   * Once per instance, before the first emission: if the object died between
   * a message's D1 write and its broadcast, D1 holds a message with the next
   * seq. Log and broadcast it now, so seqs stay gap-free and are never reused.
   */
  async #recover(): Promise<void> {
    if (!this.#spaceId) return;
    const database = getDatabase(this.env.DB);
    for (;;) {
      const message = await findMessageBySeq(database, this.#spaceId, this.#log.nextSeq);
      if (!message) return;
      this.#emitNow(this.#spaceId, { type: "space.message", data: fullMessage(message), publicData: redactMessage(message) }, message.createdAt);
    }
  }
}
