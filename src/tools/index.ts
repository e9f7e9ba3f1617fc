/**
 * The face of tools/: everything the rest of the gateway uses of it (the
 * agent object and its cycle, the routes, the space object's buffer). Nothing
 * outside tools/ imports a file behind it (`npm run deps` refuses it), and
 * nothing inside tools/ imports it. Listed by floor, bottom up (AGENTS.md).
 */

// config/: what a config may say.
export { builtinConfigFields, builtinConfigProblems } from "./config/builtin-config";
export { webSearchKeyName } from "./config/web-search-config";
export { cycleEndingTools, isBuiltinToolName } from "./config/builtin-tool-names";
export { ToolAliases, toolAliasProblems } from "./config/tool-aliases";
export { maxMcpInitConcurrency, warmUpServers } from "./mcp/warm-up-servers";
export { destinationsOf, RouterConfig } from "./config/router-config";
export { checkGatewayConfig, checkHeaderSecrets } from "./config/check-gateway-config";
export { McpServerConfig } from "./config/mcp-server-config";
export { ProviderConfig } from "./config/provider-config";
export { checkApprovalConfig, isToolVisible, QueueName, ToolConfig } from "./config/tool-config";
export { AnsweredBy, ApprovalConfig, type WaitPolicy } from "./config/wait-policy-config";
export { secretReferencePattern } from "./templates/template-arguments";

// engine/ and the clients: the pipeline, a call's outcome and life, what the agent object keeps across cycles.
export { answeredByOnCard } from "./engine/answered-by-on-card";
export { CallIds, messageIdForCall } from "./engine/call-ids";
export { type CallStat, type CallTotals, countCall, emptyFailures, latencySummary, runToolStats, type ToolStatsSummary } from "./engine/call-stats";
export { defaultModeOf, displayModeOf } from "./engine/decide-display";
export { KeyedLock } from "./engine/keyed-lock";
export { deleteOutputsOf, deletePrefix, readOutput } from "./engine/output-store";
export type { PendingCallPort, SubmitAnswer, TimeoutResult } from "./engine/pending-call-port";
export {
  callsWaitingForAccount,
  expireOpenCallsOfAgent,
  getPendingCall,
  type PendingCall,
  type PendingCallStatus,
  transitionPendingCall,
  waitsOnSomeone,
} from "./engine/pending-calls";
export { ResponseCache } from "./engine/response-cache";
export { SerialQueue } from "./engine/serial-queue";
export type { AgentIdentity, SpaceChannel, ToolContext, ToolRuntime } from "./engine/tool-context";
export { A2aPollDeadline, CallExpiryDeadline, ToolTimeoutDeadline } from "./engine/tool-deadlines";
export { a2aCallbackPath, a2aPollId, pollA2aCall } from "./a2a/poll-a2a-call";
export { cardPart, settleCard } from "./engine/tool-events";
export {
  FailureKind,
  failed,
  isToolOutcome,
  outcomeError,
  outcomeFailureKind,
  outcomeResult,
  outcomeStatus,
  ToolOutcome,
  toModelOutput,
} from "./engine/tool-outcome";
export type { ExecutedBy } from "./engine/tool-outcome";
export { ToolPipeline } from "./engine/tool-pipeline";
export { ToolQueues } from "./engine/tool-queues";
export type { ToolStreamObserver } from "./engine/tool-stream-observer";
export { resultSchemaProblem } from "./engine/validate-tool-result";
export { servableContentType } from "./files/media-type";
export { readText } from "./files/text-object-store";
export { McpPool } from "./mcp/mcp-pool";
export { McpSchemaValidator } from "./mcp/mcp-schema-validator";
export { resumeGatewayAsPerson } from "./gateway/run-gateway-as-person";
export { resumeMcpAsPerson } from "./mcp/run-mcp-as-person";
export { resumeOpenApiAsPerson } from "./openapi/run-openapi-as-person";
export { agentAccountTarget } from "./providers/agent-account-target";
export { registrationFor } from "./gateway/send-as-person";
export { a2aProvidersOf, openApiProvidersOf } from "./config/provider-config";

// The tools: built-ins (and what portable agents carry of the notes).
export { describeBuiltins } from "./builtins/describe-builtins";
export { listNotes, maxNoteBytes, notesPrefix, summaryOf } from "./builtins/notes-tools";
export { createSendMessageStreamer } from "./builtins/send-message-streamer";

// providers/: a cycle's tools, and what is checked of them at save.
export { approvalAnswerProblem } from "./providers/approval-answer-problem";
export { assembleTools } from "./providers/assemble-tools";
export { builtinProvider } from "./providers/builtin-provider";
export { checkProviderNames } from "./providers/check-provider-names";
export { outputReaderName } from "./providers/output-reader";
export { pendingToolNames } from "./providers/pending-tool-names";
export { providersOf } from "./providers/providers-of";
