/**
 * How `switchboard watch` shows a space in a terminal: streamed text as it
 * arrives, tool cards as they change status (with their arguments and
 * results), agents thinking, and failed runs with their error.
 */
import type { SpaceEvent, SpaceMember, ToolCallPart } from "../../client/src/index";

export type Output = { write(text: string): void };

const color = (code: number) => (text: string, enabled: boolean) => (enabled ? `\x1b[${code}m${text}\x1b[0m` : text);
const dim = color(2);
const bold = color(1);
const red = color(31);
const green = color(32);
const yellow = color(33);
const cyan = color(36);

function brief(value: unknown, max = 160): string {
  if (value === undefined) return "";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export class EventPrinter {
  #names = new Map<string, string>();
  /** The streamId whose text is being written on the current line. */
  #openStream: string | undefined;
  #streamed = new Set<string>();
  #lastStatus = new Map<string, string>();

  constructor(
    private readonly out: Output,
    private readonly colors: boolean,
  ) {}

  setMembers(members: SpaceMember[]): void {
    for (const member of members) this.#names.set(member.id, member.name);
  }

  nameOf(entityId: string): string {
    return this.#names.get(entityId) ?? entityId;
  }

  #line(text: string): void {
    if (this.#openStream) {
      this.out.write("\n");
      this.#openStream = undefined;
    }
    this.out.write(`${text}\n`);
  }

  #card(part: ToolCallPart, who: string): void {
    // A card that starts asking for an account keeps its status: the request is news too.
    const shown = `${part.status}${part.account ? ` ${part.account.flowId}` : ""}`;
    if (this.#lastStatus.get(part.toolCallId) === shown) return;
    this.#lastStatus.set(part.toolCallId, shown);
    const status = part.status === "complete" ? green(part.status, this.colors) : part.status === "error" ? red(part.status, this.colors) : yellow(part.status, this.colors);
    const args = part.args === undefined ? "" : brief(part.args);
    const ui = part.customUI ? dim(` [${part.customUI}]`, this.colors) : "";
    let text = `${cyan("⚙", this.colors)} ${who}: ${bold(part.toolName, this.colors)}(${args}) ${status}${ui}`;
    if (part.status === "requires_action" && part.account) {
      const { entityId, service, flowId } = part.account;
      text += dim(`\n    waits for ${this.nameOf(entityId)} to connect ${service}: switchboard accounts connect ${flowId} --as ${entityId}`, this.colors);
    } else if (part.status === "requires_action") text += dim(`\n    answer: switchboard answer ${part.toolCallId} '<json>'`, this.colors);
    if ((part.status === "complete" || part.status === "error") && part.result !== undefined) text += ` → ${brief(part.result)}`;
    this.#line(text);
  }

  print(event: SpaceEvent): void {
    switch (event.type) {
      case "space.message.streaming": {
        const { streamId, entityId, delta } = event.data;
        if (this.#openStream !== streamId) {
          if (this.#openStream) this.out.write("\n");
          this.out.write(`${bold(this.nameOf(entityId), this.colors)}: `);
          this.#openStream = streamId;
        }
        this.#streamed.add(streamId);
        this.out.write(delta);
        return;
      }
      case "space.message":
      case "space.message.updated": {
        const message = event.data;
        if (message.parts && message.parts.length > 0) {
          for (const part of message.parts) {
            if (part.type === "tool_call") this.#card(part, this.nameOf(message.entityId));
            else this.out.write(`${this.nameOf(message.entityId)} shared an image: ${part.url}\n`);
          }
          return;
        }
        if (event.type === "space.message.updated") return;
        if (this.#streamed.has(message.id)) {
          // Its text has been written as it streamed: just end the line.
          this.#streamed.delete(message.id);
          if (this.#openStream === message.id) {
            this.out.write("\n");
            this.#openStream = undefined;
          }
          return;
        }
        this.#line(`${bold(this.nameOf(message.entityId), this.colors)}: ${message.text ?? ""}`);
        return;
      }
      case "tool.started":
        this.#line(dim(`⚙ ${this.nameOf(event.data.agentEntityId)} is calling ${event.data.toolName}…`, this.colors));
        return;
      case "tool.done":
      case "tool.streaming":
        return; // the card's updates say it
      case "tool.error":
        this.#line(red(`✗ ${event.data.toolName} failed: ${brief(event.data.error)}`, this.colors));
        return;
      case "agent.cycle.started":
        this.#line(dim(`· ${this.nameOf(event.data.agentEntityId)} is thinking (${event.data.runId})`, this.colors));
        return;
      case "agent.cycle.finished": {
        const { status, error, runId, agentEntityId } = event.data;
        if (status === "failed") this.#line(red(`✗ ${this.nameOf(agentEntityId)}'s run ${runId} failed: ${error ?? "no error message"}`, this.colors));
        else this.#line(dim(`· ${this.nameOf(agentEntityId)} finished${status ? ` (${status})` : ""}`, this.colors));
        return;
      }
      case "space.member.joined":
        this.#line(dim(`+ ${this.nameOf(event.data.entityId)} joined`, this.colors));
        return;
      case "space.member.left":
        this.#line(dim(`- ${this.nameOf(event.data.entityId)} left`, this.colors));
        return;
    }
  }
}
