/**
 * The prebuilt actions on spaces: `getSpaceContext` (a space's name, metadata
 * and members), `updateSpaceMetadata` (a JSON merge patch of its metadata) and
 * `sendNotification` (a message in a space that mentions whom it notifies,
 * posted by the same path as `send_message`). Each acts on a space the agent
 * is a member of: the one it names, else its active space.
 */
import { z } from "zod";
import { getSpace, listSpaceMembers, patchSpaceMetadata, spaceMetadataLimits } from "../../db/spaces";
import { maxMentions, maxMessageChars } from "../../protocol/message";
import { postMessage } from "../builtins/space-tools";
import type { JournalAccess, PlatformAccess, RunIdentity, SpaceAccess } from "../engine/tool-context";
import { failed, succeeded, type ToolOutcome } from "../engine/tool-outcome";

type SpaceContext = RunIdentity & PlatformAccess & SpaceAccess & JournalAccess;

const SpaceId = z.string().min(1).max(100).optional().describe("The space (default: your active space)");

export const GetSpaceContextInput = z.object({ spaceId: SpaceId }).strict();

export const UpdateSpaceMetadataInput = z
  .object({
    spaceId: SpaceId,
    metadata: z
      .record(z.string().min(1).max(64), z.unknown())
      .refine((value) => Object.keys(value).length > 0, "Give at least one key")
      .describe("Keys to set; a key set to null is removed, objects are merged (a JSON merge patch)"),
  })
  .strict();

export const SendNotificationInput = z
  .object({
    message: z.string().min(1).max(maxMessageChars).describe("What to tell them"),
    title: z.string().min(1).max(200).optional().describe("A short title, shown first"),
    recipientIds: z.array(z.string().min(1).max(100)).min(1).max(maxMentions).optional().describe("Entity ids of members to notify (default: the run's initiator)"),
    spaceId: SpaceId,
  })
  .strict();

/** The space a call acts on, if the agent may: the one named, else the active one. */
async function spaceOf(context: SpaceContext, spaceId: string | undefined): Promise<{ ok: true; spaceId: string } | { ok: false; outcome: ToolOutcome }> {
  const target = spaceId ?? context.getActiveSpaceId();
  if (!target) return { ok: false, outcome: failed("No spaceId given and you are not in a space") };
  if (!(await context.isMemberOf(target))) return { ok: false, outcome: failed(`You are not a member of space "${target}"`) };
  return { ok: true, spaceId: target };
}

export async function getSpaceContext(context: SpaceContext, input: z.infer<typeof GetSpaceContextInput>): Promise<ToolOutcome> {
  const target = await spaceOf(context, input.spaceId);
  if (!target.ok) return target.outcome;
  const [space, members] = await Promise.all([getSpace(context.database, target.spaceId), listSpaceMembers(context.database, target.spaceId)]);
  if (!space) return failed(`Space "${target.spaceId}" no longer exists`);
  return succeeded({
    spaceId: space.id,
    name: space.name,
    metadata: space.metadata,
    createdAt: space.createdAt,
    active: context.getActiveSpaceId() === space.id,
    members: members.map((member) => ({ ...member, you: member.id === context.agent.entityId })),
  });
}

export async function updateSpaceMetadata(context: SpaceContext, input: z.infer<typeof UpdateSpaceMetadataInput>): Promise<ToolOutcome> {
  const target = await spaceOf(context, input.spaceId);
  if (!target.ok) return target.outcome;
  const patched = await patchSpaceMetadata(context.database, target.spaceId, input.metadata);
  if (patched.ok) return succeeded({ success: true, spaceId: target.spaceId, metadata: patched.metadata });
  return patched.reason === "not_found"
    ? failed(`Space "${target.spaceId}" no longer exists`)
    : failed(`Nothing changed: a space's metadata holds at most ${spaceMetadataLimits.keys} keys and ${spaceMetadataLimits.bytes} bytes as JSON`);
}

export async function sendNotification(context: SpaceContext, input: z.infer<typeof SendNotificationInput>, modelToolCallId: string): Promise<ToolOutcome> {
  const target = await spaceOf(context, input.spaceId);
  if (!target.ok) return target.outcome;
  const recipients = input.recipientIds ?? (context.initiatorEntityId ? [context.initiatorEntityId] : []);
  if (recipients.length === 0) return failed("Nobody to notify: give recipientIds (entity ids of members of the space)");
  const text = input.title ? `**${input.title}**\n\n${input.message}` : input.message;
  const sent = await postMessage(context, target.spaceId, { text, mentions: recipients }, modelToolCallId);
  return sent.ok ? succeeded({ success: true, notified: [...new Set(recipients)], ...sent.posted }) : failed(sent.error);
}
