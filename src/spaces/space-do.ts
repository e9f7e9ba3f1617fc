/**
 * SpaceDO: one per space (named by the space id). Owns the space's live
 * connections and hands every event the next gap-free `seq`. Messages are
 * written to D1 (with their seq) before they are broadcast. All emissions go
 * through one queue so a message waiting on D1 never lets a later event take
 * its seq.
 */
import { DurableObject } from "cloudflare:workers";
import { getDatabase } from "../db/client";
import { findMessageBySeq, getMessage, insertMessage, updateMessageParts } from "../db/messages";
import type { AppEnv } from "../env";
import { createId } from "../ids";
import { ConnectionHub } from "../streams/connection-hub";
import { EventLog } from "../streams/event-log";
import { fullMessage, type Message, type MessagePart, type NewMessage, redactMessage, type ToolCallPart } from "../protocol/message";
import type { SpaceEventInput } from "../protocol/space-event";
import type { SpacePort } from "../protocol/space-port";

export class SpaceDO extends DurableObject<AppEnv> implements SpacePort {
  readonly #log: EventLog;
  readonly #hub: ConnectionHub;
  #queue: Promise<unknown> = Promise.resolve();
  #recovered: Promise<void> | undefined;

  constructor(ctx: DurableObjectState, env: AppEnv) {
    super(ctx, env);
    this.#log = new EventLog(ctx.storage.sql);
    this.#hub = new ConnectionHub(ctx);
  }

  get #spaceId(): string {
    const name = this.ctx.id.name;
    if (!name) throw new Error("SpaceDO must be addressed by name (the space id)");
    return name;
  }

  /** Persists a message to D1, then broadcasts it as `space.message`. */
  postMessage(input: NewMessage): Promise<Message> {
    return this.#serialize(async () => {
      const spaceId = this.#spaceId;
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
      this.#emitNow({ type: "space.message", data: fullMessage(message), publicData: redactMessage(message) }, now);
      return fullMessage(message);
    });
  }

  /**
   * Replaces a tool message's parts and status in D1, then broadcasts
   * `space.message.updated`. `update` sees the current parts.
   */
  updateToolPart(messageId: string, toolCallId: string, changes: Partial<ToolCallPart>, status?: string, addParts: MessagePart[] = []): Promise<Message | undefined> {
    return this.#serialize(async () => {
      const database = getDatabase(this.env.DB);
      const current = await getMessage(database, messageId);
      if (!current?.parts) return undefined;
      const updated = current.parts.map((part) => (part.type === "tool_call" && part.toolCallId === toolCallId ? { ...part, ...changes } : part));
      const added = addParts.filter((part) => !updated.some((existing) => existing.type === part.type && existing.toolCallId === part.toolCallId));
      const parts = [...updated, ...added];
      // Settling a card twice (a transition finished again after a restart) changes nothing and says nothing.
      if (JSON.stringify(parts) === JSON.stringify(current.parts) && (status ?? current.status) === current.status) return fullMessage(current);
      const updatedAt = new Date().toISOString();
      const nextStatus = status ?? current.status;
      await updateMessageParts(database, messageId, { parts, status: nextStatus, updatedAt });
      const message: Message = { ...current, parts, status: nextStatus, updatedAt };
      this.#emitNow({ type: "space.message.updated", data: fullMessage(message), publicData: redactMessage(message) }, updatedAt);
      return fullMessage(message);
    });
  }

  /** Emits an event that is not a persisted message (streaming, membership, cycles, tools). */
  emit(event: SpaceEventInput): Promise<number> {
    return this.#serialize(async () => this.#emitNow(event, new Date().toISOString()));
  }

  /** Emits several events in order (one RPC for a burst of stream deltas). */
  emitMany(events: SpaceEventInput[]): Promise<number> {
    return this.#serialize(async () => {
      let seq = this.#log.lastSeq;
      for (const event of events) seq = this.#emitNow(event, new Date().toISOString());
      return seq;
    });
  }

  /** A member left: broadcast it, then close that entity's connections. */
  removeMember(entityId: string): Promise<void> {
    return this.#serialize(async () => {
      this.#emitNow({ type: "space.member.left", data: { entityId } }, new Date().toISOString());
      this.#hub.closeEntity(entityId, "removed from the space");
    });
  }

  override fetch(request: Request): Response {
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

  #emitNow(event: SpaceEventInput, at: string): number {
    const { frame, publicFrame, seq } = this.#log.append({ spaceId: this.#spaceId, type: event.type, at, data: event.data }, event.publicData);
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

  /**
   * Once per instance, before the first emission: if the object died between
   * a message's D1 write and its broadcast, D1 holds a message with the next
   * seq. Log and broadcast it now, so seqs stay gap-free and are never reused.
   */
  async #recover(): Promise<void> {
    const database = getDatabase(this.env.DB);
    for (;;) {
      const message = await findMessageBySeq(database, this.#spaceId, this.#log.nextSeq);
      if (!message) return;
      this.#emitNow({ type: "space.message", data: fullMessage(message), publicData: redactMessage(message) }, message.createdAt);
    }
  }
}
