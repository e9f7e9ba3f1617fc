/**
 * What every tool and resource of one MCP request works with: the request's
 * Hono context (the same one the REST routes get, so their helpers run
 * unchanged), the caller the endpoint admitted, and which endpoint it is.
 * The server is built for each request, so a tool closes over its caller
 * and never asks who it is again.
 */
import type { JSONRPCRequest, RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { ApiContext } from "../api/context";
import type { EntityCaller, SecretCaller } from "../api/route-access";
import type { ClientAbilities } from "./face-session";

export type Face = { kind: "space"; spaceId: string } | { kind: "agent"; agentId: string };

export type FaceContext = {
  c: ApiContext;
  caller: SecretCaller | EntityCaller;
  face: Face;
  /** What the client said it can take when it initialized (its session id carries it). */
  client: ClientAbilities;
  /** Sends a request to the client on the stream of the request being answered (an elicitation): the answer comes in a later POST. */
  ask: (request: JSONRPCRequest, relatedRequestId: RequestId) => Promise<void>;
};
