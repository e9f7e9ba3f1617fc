/**
 * The tools of a space's endpoint (`/mcp/spaces/:spaceId`): the
 * conversation (`send_message`, `read_messages`), `ask_agent`, and the
 * calls that wait on someone (`register-call-tools.ts`). The endpoint
 * admitted the caller for this space (the secret key, or a member's token),
 * so each tool acts in this space only, with the REST routes' rules: a
 * message posted as `POST …/messages` posts it, messages read as
 * `GET …/messages` reads them (a token sees `minimal` tools redacted).
 */
import { z } from "zod";
import { postAsCaller } from "../api/messages";
import { fullMessage, maxMentions, maxMessageChars, redactMessage } from "../protocol/message";
import { spaceStub } from "../spaces/space-stub";
import { agentInSpace, askInSpace, postSpaceQuestion, spaceQuestionEvent } from "./ask-in-space";
import { createTask, startingTask } from "./face-tasks";
import type { FaceContext } from "./face-context";
import type { FaceServer } from "./face-server";
import { callerTraceparent } from "./progress-reporter";
import { registerCallTools } from "./register-call-tools";
import { traceparentHeader } from "../telemetry/trace-context";
import { answering, toolAnswer } from "./tool-answer";
import { AskTimeout } from "./ask-timeout";

const EntityId = z.string().min(1).max(100);
export const maxReadLimit = 200;
const maxReadOffset = 10_000;

export function registerSpaceTools(server: FaceServer, context: FaceContext, spaceId: string): void {
  const secretNote = context.caller.kind === "secret" ? " With the secret key, entityId names who speaks." : "";

  server.tool(
    "send_message",
    {
      description: `Post a message to this space as you; it wakes the space's agents as any person's message does (a mentioned agent always).${secretNote}`,
      inputSchema: z.strictObject({
        text: z.string().min(1).max(maxMessageChars),
        mentions: z.array(EntityId).max(maxMentions).optional().describe("Entity ids (or agent ids) of members to mention"),
        entityId: EntityId.optional().describe("Required with the secret key: the entity that speaks"),
      }),
    },
    (input, extra) =>
      answering(async () => {
        const message = await postAsCaller(context.c, context.caller, spaceId, { ...input, traceparent: callerTraceparent(extra, context.c.req.header(traceparentHeader)) });
        return toolAnswer({ message }, `Posted message ${message.id} (seq ${message.seq}).`);
      }),
  );

  server.tool(
    "read_messages",
    {
      description: `Read this space's messages, oldest first. With afterSeq: the messages after that seq (page forward with nextAfterSeq). Without it: the newest ones, skipping the newest offset (page back with nextOffset). At most ${maxReadLimit} a page.`,
      inputSchema: z
        .strictObject({
          afterSeq: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
          offset: z.number().int().min(0).max(maxReadOffset).optional().describe("Without afterSeq: how many of the newest messages to skip"),
          limit: z.number().int().min(1).max(maxReadLimit).default(50),
        })
        .refine((input) => input.afterSeq === undefined || input.offset === undefined, { path: ["offset"], message: "Give afterSeq or offset, not both" }),
      annotations: { readOnlyHint: true },
    },
    (input) =>
      answering(async () => {
        const space = spaceStub(context.c.env, spaceId);
        const show = context.caller.kind === "secret" ? fullMessage : redactMessage;
        const read = input.afterSeq !== undefined ? await space.readMessages(input.afterSeq, input.limit) : await space.recentMessages(input.limit, input.offset ?? 0);
        const messages = read.map(show);
        const full = messages.length === input.limit;
        const last = messages.at(-1)?.seq ?? input.afterSeq ?? 0;
        const page =
          input.afterSeq !== undefined
            ? { nextAfterSeq: last, hasMore: full }
            : { nextAfterSeq: last, nextOffset: full && (input.offset ?? 0) + input.limit <= maxReadOffset ? (input.offset ?? 0) + input.limit : null };
        return toolAnswer({ messages, ...page }, `${messages.length} message(s).`);
      }),
  );

  server.tool(
    "ask_agent",
    {
      description: `Ask an agent of this space something: your message (mentioning it) is posted and wakes it, and the answer is what its run says here. Waits up to timeoutSeconds (at most ${AskTimeout.max}); past that the run goes on and the error says how to read its reply later. Sends progress notifications while it waits when the call carries a progressToken; a call of its run that waits for your answer is put to you as a form where your client takes elicitations. May run as a task: the question is posted at once and the task reads its run.${secretNote}`,
      inputSchema: z.strictObject({
        agentId: EntityId.describe("The agent: its agent id (agt_…) or its entity id"),
        text: z.string().min(1).max(maxMessageChars),
        timeoutSeconds: AskTimeout.schema,
        entityId: EntityId.optional().describe("Required with the secret key: the entity that asks"),
      }),
      task: (input, extra) =>
        startingTask(async () => {
          const agent = await agentInSpace(context, spaceId, input.agentId);
          const question = await postSpaceQuestion(context, spaceId, input, agent, extra);
          return createTask(context, { agentId: agent.agentId, eventId: spaceQuestionEvent(question), timeoutSeconds: input.timeoutSeconds, question });
        }),
    },
    (input, extra) => answering(() => askInSpace(context, spaceId, input, extra)),
  );

  registerCallTools(server, context);
}
