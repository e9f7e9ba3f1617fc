/**
 * The agent config (docs/agents.md, docs/tools.md): who the agent is, which
 * model it thinks with, how its loop runs, its tools, MCP servers and limits.
 * Every problem is reported with its path.
 */
import { z } from "@hono/zod-openapi";
import { ModelConfig } from "../models/model-config";
import {
  ApprovalConfig,
  builtinConfigFields,
  builtinConfigProblems,
  checkApprovalConfig,
  checkProviderNames,
  isBuiltinToolName,
  McpServerConfig,
  maxMcpInitConcurrency,
  outputReaderName,
  ProviderConfig,
  QueueName,
  RouterConfig,
  ToolAliases,
  ToolConfig,
  toolAliasProblems,
} from "../tools";
import { A2aFaceConfig } from "./a2a-face-config";
import { normalizeAgentConfig } from "./agent-config-aliases";
import { ReflectionConfig } from "./reflection/reflection-config";

/** The agent's `limits` (docs/tools.md); also what a task's inherited `limits` is checked with (`run-config.ts`). */
export const AgentLimits = z
  .object({
    toolTimeout: z
      .number()
      .int()
      .positive()
      .max(15 * 60 * 1000)
      .default(30_000),
    maxConcurrentTools: z.number().int().min(1).max(32).default(3),
    toolResponseMaxBytes: z.number().int().positive().max(10_000_000).default(100_000),
    /** Approximate token budget of the consciousness kept across cycles. */
    consciousnessTokens: z.number().int().min(1_000).max(1_000_000).default(24_000),
    /** A cycle that runs longer is aborted and fails (its events are retried). */
    cycleTimeout: z
      .number()
      .int()
      .min(1_000)
      .max(14 * 60 * 1000)
      .default(10 * 60 * 1000),
    /** The runaway guard: cycles that may start in any sliding minute; more wait their turn. */
    maxCyclesPerMinute: z.number().int().min(1).max(10_000).default(60),
    /** The largest whole output a tool may produce: read, and stored behind a handle when over toolResponseMaxBytes. */
    toolOutputMaxBytes: z.number().int().positive().max(50_000_000).default(5_000_000),
    /** How long a stored whole output stays readable with read_output (ms). */
    outputRetention: z
      .number()
      .int()
      .min(60_000)
      .max(30 * 24 * 3600 * 1000)
      .default(7 * 24 * 3600 * 1000),
    /** The model's context window, in tokens (for the context-budget guard). */
    contextWindowTokens: z.number().int().min(1_000).max(10_000_000).default(128_000),
    /** The share of the context window one step's tool outputs may take together; past it, outputs go behind handles. */
    toolOutputContextShare: z.number().min(0.01).max(1).default(0.5),
  })
  .strict();

const AgentConfigFields = z
  .object({
    version: z.literal("1.0").default("1.0"),
    agent: z
      .object({
        name: z.string().min(1).max(100),
        description: z.string().max(2000).optional(),
        system: z.string().max(100_000).optional(),
      })
      .strict(),
    model: ModelConfig,
    loop: z
      .object({
        maxSteps: z.number().int().min(1).max(100).default(10),
        toolChoice: z.union([z.enum(["auto", "required", "none"]), z.object({ type: z.literal("tool"), toolName: z.string().min(1).max(64) }).strict()]).default("auto"),
        /**
         * What messages that arrive while a cycle runs do (double texting): wait for the next cycle
         * (`queue`), keep only the newest per space (`latest`), be merged per speaker (`merge`),
         * hold the next cycle until the person stops typing (`{debounceMs}`), or end the running
         * cycle at its next step and start over with everything (`interrupt`).
         */
        doubleTexting: z.union([z.enum(["queue", "latest", "merge", "interrupt"]), z.object({ debounceMs: z.number().int().min(100).max(60_000) }).strict()]).default("queue"),
      })
      .strict()
      .default({ maxSteps: 10, toolChoice: "auto", doubleTexting: "queue" }),
    tools: z.array(ToolConfig).max(128).default([]),
    /** Approvals for tools the config does not list itself: built-ins and MCP tools (`server__tool`), by name. */
    approvals: z.record(z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "A tool name"), ApprovalConfig).optional(),
    /** Other names the model may call a tool by (`tools/config/tool-aliases.ts`). */
    aliases: ToolAliases,
    mcp: z
      .object({ servers: z.array(McpServerConfig).max(16).default([]) })
      .strict()
      .optional(),
    /** Agents this one may hand a conversation to (`router__handoff-to`). */
    router: RouterConfig.optional(),
    /** Connect the MCP servers when the agent is created or its config replaced, not at its first cycle (`tools/mcp/warm-up-servers.ts`). */
    warmup: z.boolean().optional(),
    /** How many MCP servers warmup connects at a time (default 4). */
    mcpInitConcurrency: z.number().int().min(1).max(maxMcpInitConcurrency).optional(),
    /** Tool sources besides `tools` and `mcp` (OpenAPI documents, sub-agents); their tools are `{name}__{tool}`. */
    providers: z.array(ProviderConfig).max(16).optional(),
    /** Named queues tools and providers refer to with `queue`: at most `concurrency` calls at a time, across cycles. */
    queues: z.record(QueueName, z.object({ concurrency: z.number().int().min(1).max(32), minIntervalMs: z.number().int().min(0).max(60_000).optional() }).strict()).optional(),
    limits: AgentLimits.default({
      toolTimeout: 30_000,
      maxConcurrentTools: 3,
      toolResponseMaxBytes: 100_000,
      consciousnessTokens: 24_000,
      cycleTimeout: 600_000,
      maxCyclesPerMinute: 60,
      toolOutputMaxBytes: 5_000_000,
      outputRetention: 7 * 24 * 3600 * 1000,
      contextWindowTokens: 128_000,
      toolOutputContextShare: 0.5,
    }),
    // The built-in catalogue: groups, denied tools, file folders, the image model.
    ...builtinConfigFields,
    reflection: ReflectionConfig.optional(),
    /** The Agent2Agent face (docs/a2a.md): off unless enabled. */
    a2a: A2aFaceConfig.optional(),
    /**
     * The earlier design's choice of how a run's answer streams. Only its one value is taken, and kept as
     * given: the gateway's streams are its own events (the space and agent streams), whatever is set here.
     */
    runtime: z
      .object({
        response: z
          .object({ type: z.literal("ui-message-stream") })
          .strict()
          .optional(),
      })
      .strict()
      .optional()
      .openapi({ description: 'Accepted as the earlier design writes it ({"response": {"type": "ui-message-stream"}}) and kept; streaming is always the gateway\'s own events' }),
  })
  .strict()
  .superRefine((config, context) => {
    // A key must be a name the model can call: a misspelt key would leave the tool it meant without its approval.
    const providerNames = [...(config.mcp?.servers ?? []), ...(config.providers ?? [])].map((provider) => provider.name);
    for (const [name, approval] of Object.entries(config.approvals ?? {})) {
      for (const problem of checkApprovalConfig(approval)) context.addIssue({ code: "custom", path: ["approvals", name, ...problem.path], message: problem.message });
      const known =
        isBuiltinToolName(name) ||
        name === outputReaderName ||
        config.tools.some((tool) => tool.name === name) ||
        providerNames.some((provider) => name.startsWith(`${provider}__`));
      if (!known) {
        context.addIssue({
          code: "custom",
          path: ["approvals", name],
          message: `"${name}" names no tool this agent can have: a built-in, a configured tool, or {provider}__{tool} of ${providerNames.length ? providerNames.map((provider) => `"${provider}"`).join(", ") : "a configured MCP server or provider (none here)"}`,
        });
      }
    }
    const canHave = (name: string) => isBuiltinToolName(name) || name === outputReaderName || config.tools.some((tool) => tool.name === name);
    const providerOf = (name: string) => providerNames.find((provider) => name.startsWith(`${provider}__`));
    for (const problem of toolAliasProblems(config.aliases, canHave, providerOf)) context.addIssue({ code: "custom", path: problem.path, message: problem.message });
    const seen = new Map<string, number>();
    config.tools.forEach((tool, index) => {
      if (isBuiltinToolName(tool.name)) {
        context.addIssue({ code: "custom", path: ["tools", index, "name"], message: `"${tool.name}" is a built-in tool name` });
      }
      const first = seen.get(tool.name);
      if (first !== undefined) {
        context.addIssue({ code: "custom", path: ["tools", index, "name"], message: `Duplicate tool name "${tool.name}" (also tools[${first}])` });
      } else seen.set(tool.name, index);
    });
    for (const problem of builtinConfigProblems(config)) context.addIssue({ code: "custom", path: problem.path, message: problem.message });
    const servers = new Set<string>();
    config.mcp?.servers.forEach((server, index) => {
      if (servers.has(server.name)) {
        context.addIssue({ code: "custom", path: ["mcp", "servers", index, "name"], message: `Duplicate MCP server name "${server.name}"` });
      }
      servers.add(server.name);
    });
    // Provider names, queues, and tool names that collide (docs/tools.md, "One naming rule").
    for (const problem of checkProviderNames(config)) context.addIssue({ code: "custom", path: problem.path, message: problem.message });
  });

/** The config, with the orchestrator's forms accepted under their names and stored under the ones here (`agent-config-aliases.ts`). */
export const AgentConfig = z.preprocess(normalizeAgentConfig, AgentConfigFields).openapi("AgentConfig");

export type AgentConfig = z.infer<typeof AgentConfigFields>;
