/**
 * The protocol's objects as this face reads and writes them (A2A 1.0, JSON:
 * camelCase fields, enums as their SCREAMING_SNAKE_CASE names). What comes
 * in is checked with zod (unknown fields are ignored, as the protocol asks);
 * what goes out is typed.
 */
import { z } from "zod";

export const protocolVersion = "1.0";

export const taskStates = [
  "TASK_STATE_SUBMITTED",
  "TASK_STATE_WORKING",
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_REJECTED",
  "TASK_STATE_AUTH_REQUIRED",
] as const;
export type TaskState = (typeof taskStates)[number];

/** States after which a task never changes. */
export const terminalStates: ReadonlySet<TaskState> = new Set(["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"]);
/** States where the task waits on its caller (a blocking send returns at them). */
export const interruptedStates: ReadonlySet<TaskState> = new Set(["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"]);

const Id = z.string().min(1).max(200);
const Metadata = z.record(z.string(), z.unknown());

export const Part = z
  .object({
    text: z.string().max(100_000).optional(),
    data: z.unknown().optional(),
    url: z.string().max(4096).optional(),
    raw: z.string().optional(),
    mediaType: z.string().max(200).optional(),
    filename: z.string().max(500).optional(),
    metadata: Metadata.optional(),
  })
  .refine((part) => [part.text, part.data, part.url, part.raw].filter((value) => value !== undefined).length === 1, "A part has exactly one of text, data, url or raw");
export type Part = z.infer<typeof Part>;

export const Message = z.object({
  messageId: Id,
  contextId: Id.optional(),
  taskId: Id.optional(),
  role: z.enum(["ROLE_USER", "ROLE_AGENT"]),
  parts: z.array(Part).min(1).max(32),
  metadata: Metadata.optional(),
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(Id).optional(),
});
export type Message = z.infer<typeof Message>;

const HistoryLength = z.number().int().min(0).max(1000);

export const SendMessageParams = z.object({
  tenant: z.string().max(200).optional(),
  message: Message,
  configuration: z
    .object({
      acceptedOutputModes: z.array(z.string()).optional(),
      historyLength: HistoryLength.optional(),
      returnImmediately: z.boolean().optional(),
      taskPushNotificationConfig: z.unknown().optional(),
    })
    .optional(),
  metadata: Metadata.optional(),
});
export type SendMessageParams = z.infer<typeof SendMessageParams>;

export const GetTaskParams = z.object({ tenant: z.string().max(200).optional(), id: Id, historyLength: HistoryLength.optional() });
export const TaskIdParams = z.object({ tenant: z.string().max(200).optional(), id: Id, metadata: Metadata.optional() });

export type TaskStatus = { state: TaskState; message?: OutMessage; timestamp: string };
export type OutPart = { text: string } | { data: unknown } | { url: string; mediaType?: string; filename?: string };
export type OutMessage = { messageId: string; contextId: string; taskId: string; role: "ROLE_USER" | "ROLE_AGENT"; parts: OutPart[]; metadata?: Record<string, unknown> };
export type Artifact = { artifactId: string; name?: string; parts: OutPart[] };
export type Task = { id: string; contextId: string; status: TaskStatus; artifacts?: Artifact[]; history?: OutMessage[]; metadata?: Record<string, unknown> };

export type StreamResponse =
  | { task: Task }
  | { message: OutMessage }
  | { statusUpdate: { taskId: string; contextId: string; status: TaskStatus; metadata?: Record<string, unknown> } }
  | { artifactUpdate: { taskId: string; contextId: string; artifact: Artifact; append?: boolean; lastChunk?: boolean } };
