/**
 * `displayTool` (a ToolConfig field): the model sees an extra optional
 * `targetSpaceId` argument naming the space to show the call in; the gateway
 * takes it out again before the tool runs, so the tool itself never sees it.
 */
export const targetSpaceIdProperty = "targetSpaceId";

export const targetSpaceIdDescription = "Space to display this tool call in. Must be a space you are a member of. Provide it first.";

/**
 * A copy of `schema` with an optional `targetSpaceId` string property, listed
 * first so models tend to emit it first. The tool's own schema is not touched,
 * and `targetSpaceId` is never required.
 */
export function withTargetSpaceId(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const { [targetSpaceIdProperty]: _replaced, ...ownProperties } = properties;
  const copy: Record<string, unknown> = {
    ...schema,
    properties: {
      [targetSpaceIdProperty]: { type: "string", description: targetSpaceIdDescription },
      ...ownProperties,
    },
  };
  if (Array.isArray(schema.required)) {
    copy.required = schema.required.filter((name) => name !== targetSpaceIdProperty);
  }
  return copy;
}

/**
 * Separates the routing field from the tool's arguments. `targetSpaceId` is
 * returned only when it is a non-empty string; any other value is dropped.
 */
export function stripTargetSpaceId(args: unknown): { args: unknown; targetSpaceId?: string } {
  if (!isPlainObject(args) || !(targetSpaceIdProperty in args)) return { args };
  const { [targetSpaceIdProperty]: targetSpaceId, ...rest } = args;
  return typeof targetSpaceId === "string" && targetSpaceId !== "" ? { args: rest, targetSpaceId } : { args: rest };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
