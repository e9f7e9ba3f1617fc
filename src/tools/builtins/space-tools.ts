/**
 * Built-in space tools (the `spaces` group): `enter_space`, `leave_space`,
 * `send_message`, `read_messages`, `skip`. Each returns a typed outcome; a
 * failure is data for the model, never a throw. A reply's message id comes from
 * its call, so a `send_message` done again after a restart finds its message
 * instead of posting it twice.
 */
import { z } from "@hono/zod-openapi";
import { tool, zodSchema } from "ai";
import type { JournalAccess, RunIdentity, SpaceAccess } from "../engine/tool-context";
import { maxMentions, maxMessageChars, type Message } from "../../protocol/message";
import { messageIdForCall } from "../engine/call-ids";
import { failed, succeeded } from "../engine/tool-outcome";
import type { SerialQueue } from "../engine/serial-queue";

const historySize = 20;

// Wrapped once per isolate, so each schema is converted to JSON Schema once (see knowledge-tools.ts).
const schemas = {
  enterSpace: zodSchema(z.object({ spaceId: z.string().describe("The id of the space") })),
  empty: zodSchema(z.object({})),
  sendMessage: zodSchema(
    z.object({
      text: z.string().min(1).max(maxMessageChars),
      mentions: z.array(z.string()).max(maxMentions).optional().describe("Entity ids to mention; mentioned agents wake up"),
    }),
  ),
  readMessages: zodSchema(
    z.object({
      spaceId: z.string().optional(),
      offset: z.number().int().min(0).max(100_000).optional(),
      limit: z.number().int().min(1).max(100).optional(),
    }),
  ),
  skip: zodSchema(z.object({ reason: z.string().max(500).optional() })),
};

function compact(message: Message) {
  return {
    id: message.id,
    seq: message.seq,
    entityId: message.entityId,
    role: message.role,
    ...(message.text !== undefined && { text: message.text }),
    ...(message.parts?.some((part) => part.type === "tool_call") && {
      tools: message.parts.flatMap((part) =>
        // Another agent reading the space sees what a call was given and gave back, unless its tool shows itself minimally.
        part.type === "tool_call"
          ? [
              {
                toolName: part.toolName,
                status: part.status,
                ...(part.displayMode !== "minimal" && part.args !== undefined && { args: part.args }),
                ...(part.displayMode !== "minimal" && part.result !== undefined && { result: part.result }),
              },
            ]
          : [],
      ),
    }),
    ...(message.parts?.some((part) => part.type === "image") && {
      images: message.parts.flatMap((part) => (part.type === "image" ? [{ mediaType: part.mediaType, ...(part.alt !== undefined && { alt: part.alt }) }] : [])),
    }),
    createdAt: message.createdAt,
  };
}

/**
 * Posts the agent's message for a call in a space it is a member of, and
 * wakes the agents it mentions: `send_message`, and the prebuilt
 * `sendNotification`. The message id comes from the call.
 */
export async function postMessage(
  context: RunIdentity & SpaceAccess & JournalAccess,
  spaceId: string,
  message: { text: string; mentions?: string[] },
  modelToolCallId: string,
): Promise<{ ok: true; posted: { messageId: string; seq: number; spaceId: string } } | { ok: false; error: string }> {
  // Every streamed delta is handed to the space before the persisted message.
  await context.inputSettled(modelToolCallId);
  const messageId = messageIdForCall(context.callIds.idFor(modelToolCallId));
  const stub = context.spaceEvents.ordered(spaceId);
  // The space checks the mentions by the rule the message route follows: a refusal posts nothing.
  const posted = await context.spaceEvents.track(
    stub.postAgentMessage({
      id: messageId,
      entityId: context.agent.entityId,
      role: "assistant",
      text: message.text,
      mentions: [...new Set(message.mentions ?? [])],
    }),
  );
  if (!posted.ok) return { ok: false, error: `Your message was not sent: ${posted.message}. Mention only members of this space (entity ids).` };
  if (posted.message.mentions?.length) await context.wakeMentioned(posted.message);
  return { ok: true, posted: { messageId: posted.message.id, seq: posted.message.seq, spaceId } };
}

/** Built-ins that take their place in the call order themselves (the rest of their work runs alongside). */
export const selfOrderedTools: ReadonlySet<string> = new Set(["enter_space", "read_messages"]);

export function createSpaceTools(context: RunIdentity & SpaceAccess & JournalAccess, order: SerialQueue) {
  return {
    enter_space: tool({
      description: "Enter a space you are a member of: it becomes your active space (where send_message and visible tools go). Returns its recent history.",
      inputSchema: schemas.enterSpace,
      execute: async ({ spaceId }) => {
        // Entering is ordered with the other built-ins; reading the history is not, so a
        // `send_message` right after it does not wait for the read.
        const entered = await order.run(async () => {
          if (!(await context.isMemberOf(spaceId))) return false;
          context.setActiveSpaceId(spaceId);
          return true;
        });
        if (!entered) return failed(`You are not a member of space "${spaceId}"`);
        // From the space's object, behind everything this cycle sent there: the newest messages are there before D1 has them.
        const history = await context.spaceEvents.ordered(spaceId).recentMessages(historySize);
        return succeeded({ spaceId, name: context.spaces.get(spaceId), recentMessages: history.map(compact) });
      },
    }),

    leave_space: tool({
      description: "Leave your active space. You stay a member; you just stop posting there.",
      inputSchema: schemas.empty,
      execute: async () => {
        const spaceId = context.getActiveSpaceId();
        context.setActiveSpaceId(undefined);
        return spaceId ? succeeded({ left: spaceId }) : failed("You are not in a space");
      },
    }),

    send_message: tool({
      description: "Send a message to your active space. Mention entity ids to wake other agents.",
      inputSchema: schemas.sendMessage,
      execute: async ({ text, mentions }, { toolCallId }) => {
        const spaceId = context.getActiveSpaceId();
        if (!spaceId) return failed("You are not in a space. Call enter_space first.");
        if (!(await context.isMemberOf(spaceId))) {
          context.setActiveSpaceId(undefined);
          return failed(`You are no longer a member of space "${spaceId}"`);
        }
        const sent = await postMessage(context, spaceId, { text, mentions }, toolCallId);
        return sent.ok ? succeeded(sent.posted) : failed(sent.error);
      },
    }),

    read_messages: tool({
      description: "Read messages of a space you are a member of (default: your active space), newest last. offset skips the newest N.",
      inputSchema: schemas.readMessages,
      execute: async ({ spaceId, offset, limit }) => {
        const target = await order.run(() => spaceId ?? context.getActiveSpaceId());
        if (!target) return failed("No spaceId given and you are not in a space");
        if (!(await context.isMemberOf(target))) return failed(`You are not a member of space "${target}"`);
        const messages = await context.spaceEvents.ordered(target).recentMessages(limit ?? 20, offset ?? 0);
        return succeeded({ spaceId: target, messages: messages.map(compact) });
      },
    }),

    skip: tool({
      description: "Nothing to do this cycle: end it quietly.",
      inputSchema: schemas.skip,
      execute: async ({ reason }) => succeeded({ skipped: true, ...(reason && { reason }) }),
    }),
  };
}
