/**
 * What every tool and resource of one MCP request works with: the request's
 * Hono context (the same one the REST routes get, so their helpers run
 * unchanged), the caller the endpoint admitted, and which endpoint it is.
 * The server is built for each request (stateless), so a tool closes over
 * its caller and never asks who it is again.
 */
import type { ApiContext } from "../api/context";
import type { EntityCaller, SecretCaller } from "../api/route-access";

export type Face = { kind: "space"; spaceId: string } | { kind: "agent"; agentId: string };

export type FaceContext = {
  c: ApiContext;
  caller: SecretCaller | EntityCaller;
  face: Face;
};
