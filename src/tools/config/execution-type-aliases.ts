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
 */
export const executionTypeAliases: Record<string, string> = {
  basic: "internal | external",
  request: "gateway",
  waiting: "external",
  compute: "prebuilt",
  "ai-agent": "agent",
};

const passThroughModes = new Set(["pass-through", "static"]);

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
      return withType(tool, "prebuilt", execution);
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
