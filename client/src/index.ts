/**
 * `switchboard/client`: the SDK for the Switchboard gateway. Runs in browsers
 * and in Node 20+ (where there is no global WebSocket, streams use SSE over
 * fetch; pass `WebSocket` from the `ws` package to use WebSockets instead).
 */
export { Switchboard, type SwitchboardOptions, type ToolHandling } from "./switchboard";
export { SwitchboardError, isErrorEnvelope, type ClientErrorCode, type ErrorCode, type GatewayErrorCode } from "./switchboard-error";
export {
  EventSubscription,
  type StreamStatus,
  type StreamTransport,
  type SubscribeOptions,
  type WebSocketConstructor,
  type WebSocketLike,
} from "./event-stream";
export { SpaceState, type RunFailure, type TimelineItem, type TimelineMessage } from "./space-state";
export { LiveSpace, type OpenSpaceOptions } from "./live-space";
export { ToolRunner, type ToolAnswer, type ToolCallContext, type ToolHandler, type ToolHandlers, type ToolOutcome, type ToolRunnerOptions } from "./handle-tools";
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
} from "./webhooks";
export { parseDuration, readTokenClaims, signToken, type SignTokenOptions } from "./sign-token";
export { backoffDelay } from "./backoff";
export { isIdempotentPost, type RetryOptions } from "./retrying-fetch";
export type * from "./types";
