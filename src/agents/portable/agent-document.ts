/**
 * A portable agent: one JSON document holding an agent's config, goals,
 * memories, plans and notes, made by `GET /api/agents/:agentId/export` and
 * read by `POST /api/agents/import` (here, or on another gateway). Everything
 * in it is checked by the same rules as where it came from: the config by
 * AgentConfig, goals, memories and plans by the knowledge tools' schemas,
 * note paths by the one path rule. Ids are not in it (the import makes new
 * ones); secrets appear only by name, as configs name them.
 */
import { z } from "@hono/zod-openapi";
import { GoalFields } from "../../knowledge/goals";
import { MemoryInput } from "../../knowledge/memories";
import { checkPlanTiming, PlanFields } from "../../knowledge/plans";
import { maxNoteBytes } from "../../tools";
import { checkFilePath } from "../../security/storage-path";
import { AgentConfig } from "../agent-config";

export const agentDocumentFormat = "switchboard.agent";
export const agentDocumentVersion = 1;

/** What one document may hold: the import route's body limit keeps the whole under `maxDocumentBytes`. */
export const documentLimits = { goals: 200, memories: 500, plans: 100, notes: 100 } as const;
/** The import route reads bodies up to this size (the other routes stop at 256 KiB). */
export const maxDocumentBytes = 2 * 1024 * 1024;

const encoder = new TextEncoder();

const DocumentPlan = PlanFields.extend({
  /** A one-shot `runAt` plan that already ran: imported finished (it does not run again). */
  finished: z.boolean().optional(),
})
  .strict()
  .superRefine(checkPlanTiming)
  .superRefine((plan, context) => {
    if (plan.finished && plan.runAt === undefined) context.addIssue({ code: "custom", path: ["finished"], message: "Only a runAt plan finishes" });
  });

const DocumentNote = z
  .object({
    path: z.string().min(1).max(512).openapi({ description: "Relative to the agent's notes folder, by the path rule of the notes tools" }),
    content: z.string(),
  })
  .strict()
  .superRefine((note, context) => {
    const checked = checkFilePath(note.path);
    if (!checked.ok) context.addIssue({ code: "custom", path: ["path"], message: checked.error });
    const bytes = encoder.encode(note.content).byteLength;
    if (bytes > maxNoteBytes) context.addIssue({ code: "custom", path: ["content"], message: `A note is at most ${maxNoteBytes} bytes; this one is ${bytes}` });
  });

/** An id of the gateway the document came from, found in the config: meaningless on another gateway. */
export const DocumentReference = z
  .object({
    path: z.string().max(1_000),
    kind: z.enum(["agent", "space", "entity"]),
    id: z.string().max(100),
  })
  .strict()
  .openapi("AgentDocumentReference");

export const AgentDocument = z
  .object({
    format: z.literal(agentDocumentFormat, { error: `Not a Switchboard agent document (format must be "${agentDocumentFormat}")` }),
    version: z.literal(agentDocumentVersion, { error: `This gateway reads version ${agentDocumentVersion} agent documents` }),
    exportedAt: z.string().max(64).optional(),
    agent: z
      .object({
        name: z.string().min(1).max(100).openapi({ description: "The agent's name (replaces config.agent.name on import; ?name= overrides it)" }),
        config: AgentConfig,
      })
      .strict(),
    goals: z.array(GoalFields).max(documentLimits.goals).default([]),
    memories: z.array(MemoryInput).max(documentLimits.memories).default([]),
    plans: z.array(DocumentPlan).max(documentLimits.plans).default([]),
    notes: z.array(DocumentNote).max(documentLimits.notes).default([]),
    /** Informational: where the config names ids of the gateway it came from. Ignored on import. */
    references: z.array(DocumentReference).max(1_000).optional(),
  })
  .strict()
  .superRefine((document, context) => {
    const unique = <T>(items: T[], keyOf: (item: T) => string, list: string, field: string, what: string) => {
      const seen = new Map<string, number>();
      items.forEach((item, index) => {
        const key = keyOf(item);
        const first = seen.get(key);
        if (first === undefined) seen.set(key, index);
        else context.addIssue({ code: "custom", path: [list, index, field], message: `Duplicate ${what} "${key}" (also ${list}.${first})` });
      });
    };
    unique(document.memories, (memory) => memory.key, "memories", "key", "memory key");
    unique(document.plans, (plan) => plan.name, "plans", "name", "plan name");
    // Compared as the notes tools compare them (NFC): two spellings of one path are one note.
    unique(document.notes, (note) => note.path.normalize("NFC"), "notes", "path", "note path");
  })
  .openapi("AgentDocument", {
    description: "A portable agent (GET /api/agents/{agentId}/export, POST /api/agents/import): config, goals, memories, plans and notes; no ids, secrets by name only",
  });

export type AgentDocument = z.infer<typeof AgentDocument>;
export type DocumentPlan = z.infer<typeof DocumentPlan>;
export type DocumentReference = z.infer<typeof DocumentReference>;
