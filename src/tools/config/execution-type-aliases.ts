/**
 * The execution types of the earlier design (docs/tools.md), accepted so
 * that configs written against it load. Each is rewritten to the type that
 * does the same here before the config is validated, and stored (and returned)
 * under its new name:
 *
 * | alias | becomes | because |
 * |---|---|---|
 * | `basic` with `execution.mode` `pass-through` or `static` | `internal` | the call is the point; the input comes back at once |
 * | `basic` without execution (`null`, absent or `{}`) | `external` | a client tool: the run waits until a result is posted |
 * | `request` | `gateway` | an HTTP request to `execution.url` |
 * | `waiting` | `external` | the cycle waits for a result (up to `timeout`) |
 * | `compute` | `prebuilt` | a server-side handler named by `execution.action` |
 * | `ai-agent` | `agent` | a sub-agent: `execution.agentId` |
 * | `image-generator` | `image-generator` | the same name here: draws an image with `execution`'s image model |
 * | `space` or `external` with `execution.url` | `gateway` | a URL means an inline HTTP call, whatever the type says: the call is made at once and its answer is the result |
 *
 * The prebuilt action names of the earlier design's roadmap are accepted the
 * same way (`prebuiltActionAliases`) and stored under the names here.
 */
export const executionTypeAliases: Record<string, string> = {
  basic: "internal | external",
  request: "gateway",
  waiting: "external",
  compute: "prebuilt",
  "ai-agent": "agent",
};

/** Prebuilt action names of the earlier design, and the action here that does the same. */
export const prebuiltActionAliases: Record<string, string> = {
  setMemory: "setMemories",
  getMemory: "getMemories",
  createPlan: "setPlans",
  getPlan: "getPlans",
};

const passThroughModes = new Set(["pass-through", "static"]);

/** `execution` with an aliased prebuilt action named by its name here. */
function withPrebuiltAction(execution: unknown): unknown {
  if (typeof execution !== "object" || execution === null || Array.isArray(execution)) return execution;
  const { action } = execution as { action?: unknown };
  return typeof action === "string" && Object.hasOwn(prebuiltActionAliases, action) ? { ...execution, action: prebuiltActionAliases[action] } : execution;
}

/** A waiting type whose execution names a URL: the earlier design makes any call with a URL an inline HTTP call. */
function hasUrl(execution: unknown): boolean {
  return typeof execution === "object" && execution !== null && typeof (execution as { url?: unknown }).url === "string";
}

function isEmptyExecution(execution: unknown): boolean {
  return execution === undefined || execution === null || (typeof execution === "object" && !Array.isArray(execution) && Object.keys(execution).length === 0);
}

/** A tool config with an alias rewritten to its type here; anything else is returned as it is. */
export function normalizeExecutionType(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const tool = raw as Record<string, unknown>;
  const { execution } = tool;
  switch (tool.executionType) {
    case "basic": {
      const mode = typeof execution === "object" && execution !== null ? (execution as { mode?: unknown }).mode : undefined;
      if (typeof mode === "string" && passThroughModes.has(mode)) return withType(tool, "internal", undefined);
      if (isEmptyExecution(execution)) return withType(tool, "external", undefined);
      return tool;
    }
    case "request":
      return withType(tool, "gateway", execution);
    case "waiting":
      return withType(tool, "external", isEmptyExecution(execution) ? undefined : execution);
    case "compute":
    case "prebuilt":
      return withType(tool, "prebuilt", withPrebuiltAction(execution));
    case "space":
    case "external":
      return hasUrl(execution) ? withType(tool, "gateway", execution) : execution === null ? withType(tool, tool.executionType, undefined) : tool;
    case "ai-agent":
      return withType(tool, "agent", execution);
    default:
      // `execution: null` means "none" in the earlier design.
      return execution === null ? withType(tool, tool.executionType, undefined) : tool;
  }
}

function withType(tool: Record<string, unknown>, executionType: unknown, execution: unknown): Record<string, unknown> {
  const { execution: _dropped, ...rest } = tool;
  return execution === undefined ? { ...rest, executionType } : { ...rest, executionType, execution };
}
