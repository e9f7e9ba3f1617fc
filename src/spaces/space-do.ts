/**
 * SpaceDO: one per space (named by the space id). Owns the space's live
 * connections, its event log and the newest part of its message history,
 * and hands every event the next gap-free `seq`.
 *
 * A message is written to the object's own SQLite, with its event, in one
 * storage transaction, then broadcast: the runtime's output gate holds the
 * frames until that write is durable, so no client ever sees a message the
 * space could lose. D1 gets the messages afterwards, in batches (write-behind:
 * a short timer, and the alarm as the backstop, retried with backoff and
 * idempotent by message id), and stays the store for queries across spaces.
 * Reads of the history come through here (`readMessages`, `recentMessages`):
 * the newest part from the object, older from D1, with no gap at the seam
 * (`message-store.ts`).
 *
 * A person's message is checked against the members the object keeps
 * (`member-cache.ts`) and wakes the space's agents from here, so posting one
 * costs no D1 statement on its way. All emissions go through one queue, in
 * arrival order.
 */
import { DurableObject } from "cloudflare:workers";
import { getDatabase } from "../db/client";
import { countedSql } from "../db/object-statements";
import { getEntity } from "../db/entities";
import { findMessageBySeq, getMessage, listMessagesBefore, listMessagesBetween } from "../db/messages";
import type { AppEnv } from "../env";
import { createId } from "../ids";
import { ConnectionHub } from "../streams/connection-hub";
import { EventLog } from "../streams/event-log";
import { fullMessage, type Message, type MessagePart, type NewMessage, redactMessage, type ToolCallPart } from "../protocol/message";
import type { SpaceEventInput } from "../protocol/space-event";
import type { ChatMessageInput, ChatMessageResult, SpacePort } from "../protocol/space-port";
import { checkMentions } from "./check-mentions";
import { MemberCache } from "./member-cache";
import { MessageFlusher } from "./message-flusher";
import { MessageStore } from "./message-store";
import { migrateSpaceStorage } from "./space-migrations";
import { deliverToAgents, spaceMessageEvent, wakeTargets } from "./wake-members";

export class SpaceDO extends DurableObject<AppEnv> implements SpacePort {
  readonly #log: EventLog;
  readonly #hub: ConnectionHub;
  readonly #messages: MessageStore;
  readonly #members: MemberCache;
  #queue: Promise<unknown> = Promise.resolve();
  #recovered: Promise<void> | undefined;
  readonly #flusher: MessageFlusher;

  constructor(ctx: DurableObjectState, env: AppEnv) {
    super(ctx, env);
    this.#log = new EventLog(countedSql(ctx.storage.sql));
    this.#hub = new ConnectionHub(ctx);
    this.#messages = new MessageStore(countedSql(ctx.storage.sql));
    this.#members = new MemberCache(
      () => getDatabase(env.DB),
      () => this.#spaceId,
    );
    this.#flusher = new MessageFlusher(ctx.storage, env, this.#messages, () => this.#spaceId);
    // Before any request, alarm or socket event (they wait for this): the tables first, then what they hold.
    // A start that throws resets the object (callers get the error); caught so it is not also an unhandled rejection.
    ctx
      .blockConcurrencyWhile(async () => {
        migrateSpaceStorage(ctx.storage);
        // Rows a previous instance wrote and did not flush: the alarm is their backstop, a timer is quicker.
        if (this.#messages.dirtyCount() > 0) this.#flusher.schedule();
      })
      .catch((error: unknown) => console.error("the space object could not start", error));
  }

  get #spaceId(): string {
    const name = this.ctx.id.name;
    if (!name) throw new Error("SpaceDO must be addressed by name (the space id)");
    return name;
  }

  /** Writes a message here with its event, then broadcasts it as `space.message`; a message id already here is returned as it is. */
  postMessage(input: NewMessage): Promise<Message> {
    return this.#serialize(async () => this.#postNow(input));
  }

  /**
   * An agent's `send_message`: its mentions checked by the rule people's
   * messages follow (`check-mentions.ts`), in the emission queue, then
   * written and broadcast. A refusal comes back as a value; nothing is posted.
   */
  postAgentMessage(input: NewMessage): Promise<ChatMessageResult> {
    return this.#serialize(async () => {
      if (input.id !== undefined && this.#messages.get(input.id)) return { ok: true as const, message: this.#postNow(input) };
      const mentions = checkMentions(input.mentions ?? [], (await this.#members.get()).byEntity);
      if (!mentions.ok) return { ok: false as const, status: 400 as const, code: "validation_error", message: mentions.message };
      // Nobody wakes themselves: the speaker's own id is not kept among its mentions.
      return { ok: true as const, message: this.#postNow({ ...input, mentions: mentions.entityIds.filter((id) => id !== input.entityId) }) };
    });
  }

  #postNow(input: NewMessage): Message {
    if (input.id !== undefined) {
      // A retried post (an Idempotency-Key, a reply done again after a restart): it keeps its seq and its one broadcast.
      const existing = this.#messages.get(input.id);
      if (existing) return fullMessage(existing);
    }
    const now = new Date().toISOString();
    const message: Message = {
      id: input.id ?? createId("msg"),
      spaceId: this.#spaceId,
      seq: this.#log.nextSeq,
      entityId: input.entityId,
      role: input.role,
      status: input.status ?? "complete",
      createdAt: now,
    };
    if (input.text !== undefined) message.text = input.text;
    if (input.parts !== undefined) message.parts = input.parts;
    if (input.mentions !== undefined && input.mentions.length > 0) message.mentions = input.mentions;
    const event = { type: "space.message" as const, data: fullMessage(message), publicData: redactMessage(message) };
    const appended = this.ctx.storage.transactionSync(() => {
      this.#messages.insert(message, () => this.#log.hadMessages());
      return this.#log.append({ spaceId: message.spaceId, type: event.type, at: now, data: event.data }, event.publicData);
    });
    this.#hub.broadcast(appended.seq, appended.frame, appended.publicFrame);
    this.#flusher.schedule();
    return fullMessage(message);
  }

  /**
   * A person's or a service's message from the route: checked against the
   * members (the speaker must be one, and so must everyone mentioned), written
   * and broadcast, then delivered to the agents it wakes (durable in their
   * inboxes when this returns). A refusal comes back as a value, with the
   * status and code the route answers with.
   */
  async postChatMessage(input: ChatMessageInput): Promise<ChatMessageResult> {
    const spaceId = this.#spaceId;
    const { space, byEntity } = await this.#members.get();
    const speaker = byEntity.get(input.speakerId);
    const notMember = { ok: false as const, status: 403 as const, code: "forbidden" as const, message: `Entity "${input.speakerId}" is not a member of space "${spaceId}"` };
    // A token's entity that is not a member learns nothing more (not even whether the space exists).
    if (!speaker && input.principal === "member") return notMember;
    if (!space) return { ok: false, status: 404, code: "not_found", message: `Space "${spaceId}" not found` };
    if (!speaker) {
      if (!(await getEntity(getDatabase(this.env.DB), input.speakerId))) return { ok: false, status: 404, code: "not_found", message: `Entity "${input.speakerId}" not found` };
      return notMember;
    }
    const mentions = checkMentions(input.mentions, byEntity);
    if (!mentions.ok) return { ok: false, status: 400, code: "validation_error", message: mentions.message };
    const message = await this.postMessage({
      ...(input.id !== undefined && { id: input.id }),
      entityId: speaker.entityId,
      role: speaker.type === "agent" ? "assistant" : "user",
      text: input.text,
      mentions: mentions.entityIds,
    });
    const agentMembers = [...byEntity.values()].flatMap((member) => (member.agentId ? [{ agentId: member.agentId, entityId: member.entityId }] : []));
    const who = { entityId: speaker.entityId, name: speaker.name, type: speaker.type };
    const targets = wakeTargets(agentMembers, message, who);
    // Outside the emission queue: the next message need not wait for these inboxes.
    if (targets.length > 0) await deliverToAgents(this.env, targets, spaceMessageEvent(message, who, space.name, input.hop, input.traceparent), `evt_${message.id}`, input.origin);
    return { ok: true, message };
  }

  /**
   * Replaces a tool message's parts and status, then broadcasts
   * `space.message.updated`. A message below the object's window (a card
   * settled long after) is read from D1 and changed here first.
   */
  updateToolPart(messageId: string, toolCallId: string, changes: Partial<ToolCallPart>, status?: string, addParts: MessagePart[] = []): Promise<Message | undefined> {
    return this.#serialize(async () => {
      const current = this.#messages.get(messageId) ?? (await this.#fromD1(messageId));
      if (!current?.parts) return undefined;
      const updated = current.parts.map((part) => (part.type === "tool_call" && part.toolCallId === toolCallId ? { ...part, ...changes } : part));
      const added = addParts.filter((part) => !updated.some((existing) => existing.type === part.type && existing.toolCallId === part.toolCallId));
      const parts = [...updated, ...added];
      // Settling a card twice (a transition finished again after a restart) changes nothing and says nothing.
      if (JSON.stringify(parts) === JSON.stringify(current.parts) && (status ?? current.status) === current.status) return fullMessage(current);
      const updatedAt = new Date().toISOString();
      const message: Message = { ...current, parts, status: status ?? current.status, updatedAt };
      const appended = this.ctx.storage.transactionSync(() => {
        this.#messages.update(message);
        return this.#log.append({ spaceId: message.spaceId, type: "space.message.updated", at: updatedAt, data: fullMessage(message) }, redactMessage(message));
      });
      this.#hub.broadcast(appended.seq, appended.frame, appended.publicFrame);
      this.#flusher.schedule();
      return fullMessage(message);
    });
  }

  /** Emits an event that is not a persisted message (streaming, membership, cycles, tools). */
  emit(event: SpaceEventInput): Promise<number> {
    return this.#serialize(async () => this.#emitNow(event, new Date().toISOString()));
  }

  /** Emits several events in order (one RPC, one storage commit, for a burst of stream deltas). */
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

  /** Messages after `afterSeq`, oldest first (`GET …/messages`). */
  async readMessages(afterSeq: number, limit: number): Promise<Message[]> {
    const start = this.#messages.windowStart();
    const older = start === undefined || afterSeq + 1 < start ? await this.#olderAfter(afterSeq, start ?? Number.MAX_SAFE_INTEGER, limit) : [];
    if (start === undefined || older.length >= limit) return older;
    return [...older, ...this.#messages.after(Math.max(afterSeq, start - 1), limit - older.length)];
  }

  /** One message by its id, from the object's window or else D1 (an escalated card is posted with its original's role). */
  async getMessage(messageId: string): Promise<Message | undefined> {
    const message = this.#messages.get(messageId) ?? (await this.#fromD1(messageId));
    return message && fullMessage(message);
  }

  /** The newest `limit` messages after skipping the newest `offset`, oldest first (`enter_space`, `read_messages`). */
  async recentMessages(limit: number, offset = 0): Promise<Message[]> {
    const wanted = limit + offset;
    const start = this.#messages.windowStart();
    const local = start === undefined ? [] : this.#messages.newest(wanted);
    let newestFirst = local;
    // Fewer than wanted in the window: the rest is below it, in D1 (none when the window starts at the space's beginning).
    if (local.length < wanted && (start === undefined || start > 1)) {
      const older = await listMessagesBefore(getDatabase(this.env.DB), this.#spaceId, start ?? Number.MAX_SAFE_INTEGER, wanted - local.length);
      newestFirst = [...local, ...this.#overlay(older)];
    }
    return newestFirst.slice(offset, offset + limit).reverse();
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

  /** The write-behind's backstop: whatever the timer did not get to D1 goes now. */
  override async alarm(): Promise<void> {
    await this.#flusher.onAlarm();
  }

  // ── reads ──────────────────────────────────────────────────────────────

  /** Messages below the window from D1, with changes not yet flushed laid over them. */
  async #olderAfter(afterSeq: number, beforeSeq: number, limit: number): Promise<Message[]> {
    return this.#overlay(await listMessagesBetween(getDatabase(this.env.DB), this.#spaceId, afterSeq, beforeSeq, limit));
  }

  #overlay(messages: Message[]): Message[] {
    const changes = this.#messages.outsideChanges(messages.map((message) => message.id));
    return changes.size === 0 ? messages : messages.map((message) => changes.get(message.id) ?? message);
  }

  async #fromD1(messageId: string): Promise<Message | undefined> {
    const message = await getMessage(getDatabase(this.env.DB), messageId);
    return message?.spaceId === this.#spaceId ? message : undefined;
  }

  // ── events ─────────────────────────────────────────────────────────────

  #emitNow(event: SpaceEventInput, at: string): number {
    // Membership passes through here: the next message reads the members again.
    if (event.type === "space.member.joined" || event.type === "space.member.left") this.#members.invalidate();
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
   * Once in the object's life: a space from before messages were written here
   * may have died between a message's D1 write and its broadcast, leaving D1
   * a message with the next seq. Log and broadcast it now, so seqs stay
   * gap-free and are never reused. Then never again (the flag is kept).
   */
  async #recover(): Promise<void> {
    if (this.#messages.flag("d1_checked")) return;
    const database = getDatabase(this.env.DB);
    for (;;) {
      const message = await findMessageBySeq(database, this.#spaceId, this.#log.nextSeq);
      if (!message) break;
      this.#emitNow({ type: "space.message", data: fullMessage(message), publicData: redactMessage(message) }, message.createdAt);
    }
    this.#messages.setFlag("d1_checked");
  }
}
