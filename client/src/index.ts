/**
 * `@switchboard/client`: the SDK for the Switchboard gateway. Runs in browsers
 * and in Node 20+ (where there is no global WebSocket, streams use SSE over
 * fetch; pass `WebSocket` from the `ws` package to use WebSockets instead).
 */
export { Switchboard, type SwitchboardOptions, type ToolHandling } from "./switchboard.js";
export { SwitchboardError, isErrorEnvelope, type ClientErrorCode, type ErrorCode, type GatewayErrorCode } from "./switchboard-error.js";
export {
  EventSubscription,
  type StreamStatus,
  type StreamTransport,
  type SubscribeOptions,
  type WebSocketConstructor,
  type WebSocketLike,
} from "./event-stream.js";
export { SpaceState, type RunFailure, type TimelineItem, type TimelineMessage } from "./space-state.js";
export { LiveSpace, type OpenSpaceOptions } from "./live-space.js";
export { ToolRunner, type ToolAnswer, type ToolArgs, type ToolCallContext, type ToolHandler, type ToolHandlers, type ToolOutcome, type ToolRunnerOptions } from "./handle-tools.js";
export {
  createWebhookHandler,
  standardWebhookSecret,
  toNodeListener,
  verifyWebhook,
  verifyWebhookSignature,
  WebhookVerificationError,
  webhookDeliveryHeader,
  webhookKeyBytes,
  webhookSignatureHeader,
  type WebhookHandlerOptions,
} from "./webhooks.js";
export { parseDuration, readTokenClaims, signToken, type SignTokenOptions } from "./sign-token.js";
export { backoffDelay } from "./backoff.js";
export { isIdempotentPost, type RetryOptions } from "./retrying-fetch.js";
export type * from "./types.js";
