/**
 * What a remote agent answers, read leniently (unknown fields ignored, as
 * the protocol asks) and turned into a tool outcome: a message, or a task
 * that completed, is the call's result (`{text, data?, files?, taskId?}`:
 * the text parts joined, the data and file parts listed, from the
 * artifacts, else the status message); a task that failed, was rejected
 * or cancelled is an upstream error with what the remote said; a task that
 * asks for input (or authentication) ends the call with an error naming
 * what it asked, since the gateway has no one to answer it with; a task
 * that is submitted or working is still under way.
 */
import { z } from "zod";
import type { FailureKind, ToolOutcome } from "../engine/tool-outcome";

/** An outcome that settles a pending call. */
export type Settled = Extract<ToolOutcome, { type: "ok" | "error" }>;
const succeeded = (value: unknown): Settled => ({ type: "ok", value });
const failed = (message: string, kind: FailureKind): Settled => ({ type: "error", message, kind });

const RemotePart = z.object({
  text: z.string().optional(),
  data: z.unknown().optional(),
  url: z.string().max(4096).optional(),
  raw: z.string().optional(),
  mediaType: z.string().max(200).optional(),
  filename: z.string().max(500).optional(),
});
type RemotePart = z.infer<typeof RemotePart>;

const RemoteMessage = z.object({ messageId: z.string().optional(), parts: z.array(RemotePart).max(1000) });

export const RemoteTask = z.object({
  id: z.string().min(1).max(200),
  contextId: z.string().max(200).optional(),
  status: z.object({ state: z.string().max(100), message: RemoteMessage.optional() }),
  artifacts: z
    .array(z.object({ artifactId: z.string().optional(), name: z.string().optional(), parts: z.array(RemotePart).max(1000) }))
    .max(1000)
    .optional(),
});
export type RemoteTask = z.infer<typeof RemoteTask>;

/** SendMessage's result: a task or a message (1.0), each under its own field. */
export const SendMessageResult = z.union([z.object({ task: RemoteTask }), z.object({ message: RemoteMessage })]);

export type TaskReading = { done: Settled } | { working: string };

const stateName = (state: string) =>
  state
    .replace(/^TASK_STATE_/, "")
    .toLowerCase()
    .replace(/_/g, "-");

function answerValue(parts: RemotePart[], taskId?: string) {
  const text = parts.flatMap((part) => (part.text !== undefined ? [part.text] : [])).join("\n");
  const data = parts.flatMap((part) => (part.data !== undefined ? [part.data] : []));
  const files = parts.flatMap((part) =>
    part.url !== undefined ? [{ url: part.url, ...(part.mediaType && { mediaType: part.mediaType }), ...(part.filename && { filename: part.filename }) }] : [],
  );
  // Inline bytes are left out: the model reads text, and bytes would only fill its context.
  const inline = parts.filter((part) => part.raw !== undefined).length;
  return {
    text,
    ...(data.length > 0 && { data }),
    ...(files.length > 0 && { files }),
    ...(inline > 0 && { omitted: `${inline} inline file part(s) not shown` }),
    ...(taskId && { taskId }),
  };
}

const said = (message: z.infer<typeof RemoteMessage> | undefined) =>
  (message?.parts ?? [])
    .flatMap((part) => (part.text !== undefined ? [part.text] : part.data !== undefined ? [JSON.stringify(part.data)] : []))
    .join(" ")
    .slice(0, 2_000);

/** The outcome of a finished task, or the state of one still under way. */
export function readTask(task: RemoteTask, where: string): TaskReading {
  const state = task.status.state;
  const message = said(task.status.message);
  switch (state) {
    case "TASK_STATE_COMPLETED": {
      const parts = (task.artifacts ?? []).flatMap((artifact) => artifact.parts);
      return { done: succeeded(answerValue(parts.length > 0 ? parts : (task.status.message?.parts ?? []), task.id)) };
    }
    case "TASK_STATE_FAILED":
    case "TASK_STATE_REJECTED":
    case "TASK_STATE_CANCELED":
      return { done: failed(`${where}: task ${task.id} ${stateName(state)}${message ? `: ${message}` : ""}`, "upstream") };
    case "TASK_STATE_INPUT_REQUIRED":
    case "TASK_STATE_AUTH_REQUIRED":
      return {
        done: failed(
          `${where} asked for ${state === "TASK_STATE_INPUT_REQUIRED" ? "more input" : "authentication"} (task ${task.id}): ${message || "it said nothing more"}. The gateway does not answer a remote agent's questions: call again with a message that says it`,
          "upstream",
        ),
      };
    default:
      return { working: stateName(state) };
  }
}

/** A message answer is the result at once. */
export const messageOutcome = (message: z.infer<typeof RemoteMessage>): Settled => succeeded(answerValue(message.parts));
