/**
 * The shapes the SDK speaks, all taken from the generated OpenAPI types
 * (`generated/openapi.ts`, from the Worker's own `/openapi.json`): nothing
 * here is written by hand but the names.
 */
import type { components, paths } from "./generated/openapi.js";

export type { components, paths };
type Schemas = components["schemas"];

export type ErrorEnvelope = Schemas["Error"];
export type Message = Schemas["Message"];
export type ToolCallPart = Schemas["ToolCallPart"];
export type SpaceEvent = Schemas["SpaceEvent"];
export type AgentEvent = Schemas["AgentEvent"];
export type ToolCallWebhook = Schemas["ToolCallWebhook"];
export type WebhookSubscription = Schemas["WebhookSubscription"];
/** What a webhook subscription receives, by event type. */
export type SubscriptionEvent = Schemas["CallAwaitingInputEvent"] | Schemas["CallExpiredEvent"] | Schemas["RunCompletedEvent"] | Schemas["RunFailedEvent"];
export type SpaceSummary = Schemas["SpaceSummary"];
export type AgentSummary = Schemas["AgentSummary"];
export type EntitySummary = Schemas["EntitySummary"];
export type SpaceTool = Schemas["SpaceTool"];
export type SpaceMember = Schemas["SpaceMember"];
export type Me = Schemas["Me"];
export type Run = Schemas["Run"];
/** An agent's config as the gateway returns it (`agents.get(id).config`): every field with a default filled in. */
export type AgentConfig = Schemas["AgentConfig"];
/** An agent's config as you write it (`agents.create`, `agents.update`): a field with a default may be left out. */
export type AgentConfigInput = Schemas["AgentConfigInput"];
/** A configured tool as the gateway returns it, defaults filled in. */
export type ToolConfig = Schemas["ToolConfig"];
/** A configured tool as you write it (in `AgentConfigInput.tools`): a field with a default may be left out. */
export type ToolConfigInput = Schemas["ToolConfigInput"];
/** An agent's model as you write it. */
export type ModelConfigInput = Schemas["ModelConfigInput"];
/** A portable agent as `exportAgent` gives it. */
export type AgentDocument = Schemas["AgentDocument"];
/** A portable agent as `importAgent` takes it: an exported document, or one written by hand with defaults left out. */
export type AgentDocumentInput = Schemas["AgentDocumentInput"];

/** One space event of a given type, e.g. `SpaceEventOf<"tool.started">`. */
export type SpaceEventOf<T extends SpaceEvent["type"]> = Extract<SpaceEvent, { type: T }>;
/** One agent event of a given type, e.g. `AgentEventOf<"tool.pending">`. */
export type AgentEventOf<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;

/** A call the SDK hands to a tool handler: the `tool.pending` announcement. */
export type PendingToolCall = AgentEventOf<"tool.pending">["data"];
