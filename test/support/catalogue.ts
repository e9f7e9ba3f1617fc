/**
 * Helpers for the built-in catalogue's tests: a scripted agent with chosen
 * built-in groups in a space with a person, and a stand-alone tool context
 * for calling one built-in directly (the same call id twice is a call done
 * again after a restart).
 */
import { env } from "cloudflare:workers";
import type { Tool } from "ai";
import { getDatabase } from "../../src/db/client";
import { CallIds } from "../../src/tools/engine/call-ids";
import { failed, type ToolOutcome } from "../../src/tools/engine/tool-outcome";
import type { ToolContext, ToolSettings } from "../../src/tools/engine/tool-context";
import type { AppEnv } from "../../src/env";
import { createHuman, createSpace, secret } from "./api";
import { createAgent, type ScriptedTurn } from "./agents";

export async function catalogueAgent(config: Record<string, unknown>, turns: (spaceId: string) => ScriptedTurn[]) {
  const person = await createHuman("Pat");
  const spaceId = await createSpace([person]);
  const agent = await createAgent({ agent: { name: "Cataloguer", system: "You test the catalogue." }, model: { provider: "scripted", turns: turns(spaceId) }, ...config });
  await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: agent.entityId } });
  const wake = (data: unknown = { go: true }) => secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data } });
  return { person, spaceId, agent, wake };
}

export const defaultLimits = { toolTimeout: 5_000, maxConcurrentTools: 3, toolResponseMaxBytes: 100_000 };

/** A tool context outside any cycle: no spaces unless given, a fresh agent id unless given. */
export function toolContext(overrides: Partial<Omit<ToolContext, "config">> & { config?: Partial<ToolSettings> } = {}): ToolContext {
  const agentId = overrides.agent?.agentId ?? `agt_${crypto.randomUUID().replaceAll("-", "")}`;
  const { config, ...rest } = overrides;
  const published: { type: string; data: Record<string, unknown> }[] = [];
  const context: ToolContext = {
    env: env as unknown as AppEnv,
    database: getDatabase(env.DB),
    agent: { agentId, entityId: `ent_${agentId.slice(4)}`, name: "Direct" },
    config: { tools: [], limits: defaultLimits, ...config },
    runId: "run_direct",
    hop: 0,
    knowledge: { database: getDatabase(env.DB), agentId },
    spaces: new Map(),
    getActiveSpaceId: () => undefined,
    setActiveSpaceId: () => undefined,
    spaceEvents: {
      push: () => undefined,
      ordered: () => {
        throw new Error("no spaces in a direct tool context");
      },
      track: (call) => call,
      drain: async () => undefined,
    },
    publish: (type, data) => published.push({ type, data }),
    callIds: new CallIds(),
    journal: {
      previous: () => undefined,
      markAnnounced: () => undefined,
      outcome: () => undefined,
      markCard: () => undefined,
      openWait: () => undefined,
      closeWait: () => undefined,
    },
    callbackUrl: async (pendingId) => `/api/callbacks/${pendingId}`,
    isMemberOf: async () => false,
    knowledgeChanged: () => undefined,
    inputSettled: async () => undefined,
    wakeMentioned: async () => undefined,
    toolRuntime: {
      calls: undefined as never,
      deadlines: { set: () => undefined, get: () => undefined, delete: () => undefined, wakeLater: () => undefined },
      outbox: { sendWebhook: () => undefined, notify: () => undefined, delegate: async () => ({ ok: false, error: "no agents in a direct tool context" }) },
      kept: { mcp: undefined as never, queues: undefined as never, cache: undefined as never, recordCall: () => undefined },
      inbox: { takeQueuedResult: () => false },
      variables: { get: () => null, set: () => ({ ok: false, error: "no agent object in a direct tool context" }) },
    },
    depth: 0,
    stepNumber: () => 0,
    mediaToolResults: false,
    markInputSettled: () => undefined,
    runBatched: async (call) => failed(`No tool "${call.toolName}" in a direct tool context`),
    reportFinal: () => undefined,
    ...rest,
  };
  return context;
}

/** Calls a tool as the SDK would, under a model call id (the same id again: the call done again). */
export async function callTool(tools: Record<string, Tool>, name: string, input: unknown, modelToolCallId = crypto.randomUUID()): Promise<ToolOutcome> {
  const execute = tools[name]?.execute;
  if (!execute) throw new Error(`no tool ${name}`);
  return (await execute(input as never, { toolCallId: modelToolCallId, messages: [] } as never)) as ToolOutcome;
}

/** The value of an outcome that must have succeeded. */
export function okValue<T = Record<string, unknown>>(outcome: ToolOutcome): T {
  if (outcome.type !== "ok") throw new Error(`expected success, got ${JSON.stringify(outcome)}`);
  return outcome.value as T;
}

/** The message of an outcome that must have failed. */
export function errorOf(outcome: ToolOutcome): string {
  if (outcome.type !== "error") throw new Error(`expected an error, got ${JSON.stringify(outcome)}`);
  return outcome.message;
}
