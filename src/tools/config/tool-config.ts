/**
 * ToolConfig (docs/tools.md, "ToolConfig reference"): one tool of an agent.
 * Validated strictly so that a typo is refused with its path instead of
 * silently ignored.
 */
import { z } from "@hono/zod-openapi";
import { ImageModelConfig } from "../../models/image-model-config";
import { OutboundUrl, outboundUrlProblem } from "../../security/url-policy";
import { checkGatewayConfig } from "./check-gateway-config";
import { ConfiguredHeaders } from "./configured-headers";
import { GatewayAuth } from "./gateway-auth-config";
import { checkInputSchema } from "../json-schema/check-input-schema";
import { checkResultSchema } from "../json-schema/check-result-schema";
import { JsonSchemaObject } from "./json-schema-object";
import { prebuiltActions, readOnlyPrebuiltActions } from "./prebuilt-actions";
import { AnsweredBy, ApprovalConfig, WaitPolicyFields } from "./wait-policy-config";
import { normalizeExecutionType } from "./execution-type-aliases";
import { normalizeRestTool } from "./rest-tool-aliases";
import { SubagentInherit } from "./subagent-inherit";

export const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;
export const maxToolTimeoutMs = 15 * 60 * 1000;

export { JsonSchemaObject };

export const ToolDisplay = z
  .object({
    customUI: z.string().min(1).max(200).optional(),
    mode: z.enum(["full", "minimal", "hidden"]).optional(),
    /** The role the card's message is stored and published with: `tool` (the default), or `assistant`, as the display-tools design stores it. */
    messageRole: z.enum(["tool", "assistant"]).optional(),
  })
  .strict();

const GatewayExecution = z
  .object({
    url: OutboundUrl,
    method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]).default("GET"),
    headers: ConfiguredHeaders.optional(),
    body: z.unknown().optional(),
    maxResponseBytes: z.number().int().positive().max(10_000_000).optional(),
    /** The call acts as a person, with their OAuth token (`gateway-auth-config.ts`). */
    auth: GatewayAuth.optional(),
  })
  .strict();

const PendingExecution = z
  .object({
    webhook: OutboundUrl.optional(),
    expiresIn: z
      .number()
      .int()
      .positive()
      .max(30 * 24 * 3600 * 1000)
      .optional(),
  })
  .strict();

const PrebuiltExecution = z.object({ action: z.string().min(1).max(64) }).strict();

/** A sub-agent as a tool: the task goes to that agent's inbox; its final answer is the result. */
const AgentExecution = z
  .object({
    agentId: z.string().min(1).max(100),
    /** Parts of the caller's config the task carries (`subagent-inherit.ts`). */
    inherit: SubagentInherit.optional(),
    expiresIn: z
      .number()
      .int()
      .positive()
      .max(30 * 24 * 3600 * 1000)
      .optional(),
  })
  .strict();

export const queueNamePattern = /^[a-zA-Z0-9_-]{1,32}$/;
export const QueueName = z.string().regex(queueNamePattern, "Queue names match ^[a-zA-Z0-9_-]{1,32}$");

/** `cache`: answers kept for `ttlMs` per tool and canonical arguments; tools with side effects only with `allowSideEffects`. */
export const ToolCache = z
  .object({
    ttlMs: z
      .number()
      .int()
      .min(1)
      .max(24 * 3600 * 1000),
    allowSideEffects: z.boolean().optional(),
  })
  .strict()
  .openapi("ToolCache");

const common = {
  name: z
    .string({
      // The orchestrator names a REST tool by its key in its config: here the tool carries that name itself.
      error: (issue) =>
        issue.input === undefined ? "Required: the name the model calls this tool by (a REST tool written the orchestrator's way takes its key there as its name)" : undefined,
    })
    .regex(toolNamePattern, "Tool names match ^[a-zA-Z0-9_-]{1,64}$"),
  description: z.string().max(4096).optional(),
  inputSchema: JsonSchemaObject.optional(),
  /** What the answer of an `external`/`space` tool looks like: the space page builds its answer form from it. */
  resultSchema: z.record(z.string(), z.unknown()).optional().openapi({
    description:
      "A JSON Schema of the result a person, a service or a sub-agent gives (external, space and agent tools): a result that does not match it is refused with 400 `invalid_result` (unless resultSchemaMode is advisory); the live space page builds its answer form from it",
  }),
  /** `enforced` (the default): results must match `resultSchema`; `advisory`: it only shapes the answer form. */
  resultSchemaMode: z.enum(["enforced", "advisory"]).optional().openapi({
    description: "`enforced` (default): a result that does not match resultSchema is refused; `advisory`: any result is taken, the schema only shapes the answer form",
  }),
  visible: z.boolean().optional(),
  isAsync: z.boolean().optional(),
  timeout: z.number().int().positive().max(maxToolTimeoutMs).optional(),
  displayTool: z.boolean().optional(),
  display: ToolDisplay.optional(),
  /** Puts the call behind a person's approval in the active space (any execution type). */
  approval: ApprovalConfig.optional(),
  /** A queue named in the agent's `queues`: its concurrency limit applies to this tool's calls. */
  queue: QueueName.optional(),
  cache: ToolCache.optional(),
};

/** `external` and `space` calls wait on someone: what happens when nobody answers in time. */
const waiting = { ...WaitPolicyFields };

const ToolConfigUnion = z
  .discriminatedUnion("executionType", [
    z.object({ ...common, executionType: z.literal("gateway"), execution: GatewayExecution }).strict(),
    z.object({ ...common, ...waiting, executionType: z.literal("external"), execution: PendingExecution.optional() }).strict(),
    z.object({ ...common, ...waiting, answeredBy: AnsweredBy.optional(), executionType: z.literal("space"), execution: PendingExecution.optional() }).strict(),
    z.object({ ...common, executionType: z.literal("internal"), execution: z.object({}).strict().optional() }).strict(),
    z.object({ ...common, executionType: z.literal("prebuilt"), execution: PrebuiltExecution }).strict(),
    /** Draws an image (`{prompt}` by default) with an image model; the image is kept in R2 and shown on the call's card. */
    z.object({ ...common, executionType: z.literal("image-generator"), execution: ImageModelConfig }).strict(),
    z.object({ ...common, executionType: z.literal("agent"), execution: AgentExecution }).strict(),
  ])
  .superRefine((tool, context) => {
    // `description` and `inputSchema` may be left out, as the design documents' own examples do: the model is then
    // shown the tool's name as its description and an input of no fields (`resolveConfiguredTool`).
    if (tool.executionType === "gateway" && outboundUrlProblem(tool.execution.url) === undefined) {
      for (const problem of checkGatewayConfig(tool.execution)) {
        context.addIssue({ code: "custom", path: ["execution", ...problem.path], message: problem.message });
      }
    }
    if (tool.executionType === "gateway" && tool.execution.auth !== undefined) {
      // The person's token is the Authorization header: a configured one would stand beside it or replace it.
      const configured = Object.keys(tool.execution.headers ?? {}).find((name) => name.toLowerCase() === "authorization");
      if (configured !== undefined) {
        context.addIssue({
          code: "custom",
          path: ["execution", "headers", configured],
          message: "A tool with auth sends the person's token as its Authorization header: remove this one",
        });
      }
    }
    if (tool.executionType === "prebuilt" && !prebuiltActions.includes(tool.execution.action)) {
      context.addIssue({
        code: "custom",
        path: ["execution", "action"],
        message: `Unknown prebuilt action "${tool.execution.action}"; available: ${prebuiltActions.join(", ")}`,
      });
    }
    if (tool.executionType === "space" && !tool.displayTool && (tool.visible === false || tool.display?.mode === "hidden")) {
      context.addIssue({ code: "custom", path: ["visible"], message: "A space tool is answered by a person in the space: it must be visible" });
    }
    if (tool.inputSchema !== undefined) {
      for (const problem of checkInputSchema(tool.inputSchema)) {
        context.addIssue({ code: "custom", path: ["inputSchema", ...problem.path], message: problem.message });
      }
    }
    if (tool.resultSchema !== undefined) {
      for (const problem of checkResultSchema(tool.resultSchema)) {
        context.addIssue({ code: "custom", path: ["resultSchema", ...problem.path], message: problem.message });
      }
    } else if (tool.resultSchemaMode !== undefined) {
      context.addIssue({ code: "custom", path: ["resultSchemaMode"], message: "Only with a resultSchema" });
    }
    if (tool.executionType === "external" || tool.executionType === "space") {
      if (tool.onTimeout === "approve")
        context.addIssue({ code: "custom", path: ["onTimeout"], message: '"approve" is for approvals; a waiting call may "error", "deny" or "escalate"' });
      if (tool.onTimeout === "escalate" && !tool.escalateTo) context.addIssue({ code: "custom", path: ["escalateTo"], message: 'Required with onTimeout "escalate"' });
      if (tool.isAsync && (tool.onTimeout !== undefined || tool.reminders !== undefined)) {
        context.addIssue({
          code: "custom",
          path: ["onTimeout"],
          message: "An async call does not wait: onTimeout and reminders apply to sync calls (use execution.expiresIn for async ones)",
        });
      }
    }
    for (const problem of checkApprovalConfig(tool.approval)) context.addIssue({ code: "custom", path: ["approval", ...problem.path], message: problem.message });
    const cacheProblem = tool.cache ? cacheRefusal(tool) : undefined;
    if (cacheProblem) context.addIssue({ code: "custom", path: ["cache"], message: cacheProblem });
  });

/** An approval's `when` must be a schema that compiles, like any input schema. */
export function checkApprovalConfig(approval: ApprovalConfig | undefined): { path: (string | number)[]; message: string }[] {
  if (!approval || approval.required === true) return [];
  return checkInputSchema(approval.required.when).map((problem) => ({ path: ["required", "when", ...problem.path], message: problem.message }));
}

/**
 * ToolConfig, with the execution types of the earlier design
 * accepted under their old names and stored under the new ones
 * (`execution-type-aliases.ts`), and the orchestrator's REST form taken as
 * a gateway tool (`rest-tool-aliases.ts`).
 */
export const ToolConfig = z.preprocess((raw) => normalizeExecutionType(normalizeRestTool(raw)), ToolConfigUnion).openapi("ToolConfig");

export type ToolConfig = z.infer<typeof ToolConfigUnion>;
export type ExecutionType = ToolConfig["executionType"];

export type GatewayExecution = Extract<ToolConfig, { executionType: "gateway" }>["execution"];
/** The parsed config, with `method` optional (it defaults to GET). */
export type GatewayExecutionInput = Omit<GatewayExecution, "method"> & { method?: GatewayExecution["method"] };

/** `visible` defaults to true, except for `internal`, `prebuilt` and `agent` tools. */
export function isToolVisible(tool: ToolConfig): boolean {
  return tool.visible ?? defaultVisible(tool.executionType);
}

export function defaultVisible(executionType: ExecutionType): boolean {
  return !(executionType === "internal" || executionType === "prebuilt" || executionType === "agent");
}

/** Why `cache` cannot be set on this tool, if it cannot. */
function cacheRefusal(tool: z.infer<typeof ToolConfigUnion>): string | undefined {
  switch (tool.executionType) {
    case "external":
    case "space":
    case "agent":
      return `A ${tool.executionType} tool is answered later by someone else: its answers cannot be cached`;
    case "gateway":
      if (tool.execution.method === "GET" || tool.cache?.allowSideEffects) return undefined;
      return `A ${tool.execution.method} request may have side effects: set cache.allowSideEffects to cache it anyway`;
    case "prebuilt":
      if (readOnlyPrebuiltActions.has(tool.execution.action) || tool.cache?.allowSideEffects) return undefined;
      return `The action "${tool.execution.action}" changes state: set cache.allowSideEffects to cache it anyway`;
    case "image-generator":
      return "An image-generator tool draws a new image on every call: its answers are not cached";
    case "internal":
      return undefined;
  }
}
