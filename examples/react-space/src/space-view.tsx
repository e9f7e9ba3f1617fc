/**
 * One space live with `useSpace`: the timeline (messages, streamed text,
 * tool cards drawn through the registry, failed runs), who is thinking, the
 * connection, and a composer that sends with `space.send`.
 */
import type { TimelineMessage } from "@switchboard/client";
import { DefaultToolCard, type SpaceView as Space, ToolCards, type ToolRegistry, useMe, useSpace } from "@switchboard/react";
import { type FormEvent, type KeyboardEvent, useState } from "react";
import { FeedbackCard } from "./feedback-card";

/** `ask_feedback` (the demo agent's question) gets its own card; every other tool the fallback. */
const tools: ToolRegistry = { by_name: { ask_feedback: FeedbackCard }, Fallback: DefaultToolCard };

const connectionText = { connecting: "Connecting…", open: "Live", reconnecting: "Reconnecting…", closed: "Disconnected" } as const;

export function SpaceView({ spaceId }: { spaceId: string }) {
  const space = useSpace(spaceId);
  const { me } = useMe();
  const nameOf = (entityId: string) => space.members.find((member) => member.id === entityId)?.name ?? entityId;
  return (
    <main className="space">
      <p className="connection" id="connection" data-status={space.status}>
        {connectionText[space.status]}
        {space.error && space.status !== "open" ? `: ${space.error.message}` : ""}
      </p>
      <ol className="timeline">
        {space.timeline.map((item) =>
          item.kind === "message" ? (
            <MessageItem key={item.message.id} message={item.message} author={nameOf(item.message.entityId)} mine={item.message.entityId === me?.entity.id} />
          ) : (
            <li key={item.failure.runId} className="run-failed" data-seq={item.seq}>
              {nameOf(item.failure.agentEntityId)}'s run failed: <span className="error-text">{item.failure.error}</span>
            </li>
          ),
        )}
      </ol>
      <p className="thinking" aria-live="polite">
        {space.thinking.length > 0 ? `${space.thinking.map(nameOf).join(", ")} ${space.thinking.length === 1 ? "is" : "are"} thinking…` : ""}
      </p>
      <Composer space={space} />
    </main>
  );
}

function MessageItem({ message, author, mine }: { message: TimelineMessage; author: string; mine: boolean }) {
  const cards = message.parts?.some((part) => part.type === "tool_call") ?? false;
  return (
    <li className={`message${mine ? " mine" : ""}${message.draft ? " draft" : ""}`} data-message-id={message.id} data-seq={message.seq} data-draft={message.draft === true}>
      <span className="author">{author}</span>
      {message.text ? (
        <p className="text">
          {message.text}
          {message.draft ? <span className="cursor">▍</span> : null}
        </p>
      ) : null}
      {cards ? <ToolCards message={message} tools={tools} /> : null}
    </li>
  );
}

function Composer({ space }: { space: Space }) {
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string>();
  const [sending, setSending] = useState(false);
  const send = async () => {
    const said = text.trim();
    if (!said || sending) return;
    setSending(true);
    setProblem(undefined);
    try {
      await space.send(said);
      setText("");
    } catch (error) {
      setProblem(`Not sent: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      setSending(false);
    }
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void send();
  };
  // Enter sends, Shift+Enter starts a new line; Enter that ends an input method's composition does neither.
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  };
  return (
    <form className="composer" onSubmit={onSubmit}>
      <textarea id="composer" aria-label="Message" rows={2} value={text} placeholder="Say something…" onChange={(event) => setText(event.target.value)} onKeyDown={onKeyDown} />
      <button type="submit" disabled={sending || !text.trim()}>
        Send
      </button>
      {problem ? (
        <p className="problem" role="alert">
          {problem}
        </p>
      ) : null}
    </form>
  );
}
