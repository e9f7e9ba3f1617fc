/**
 * Reads `x-switchboard-hop` (how many agent cycles led to this request: a
 * gateway tool adds one to its cycle's) and refuses work past the bound with
 * 508, so a tool that calls the gateway back cannot loop without end. A
 * header that is not a hop count (negative, not a number, past 999) is a
 * 400: it is not taken as any hop. The hop travels on with the events the
 * request causes.
 */
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../errors";
import { hopHeader, maxHops, readHop } from "../protocol/hop";
import type { ApiEnv } from "./context";

export const hopGuard: MiddlewareHandler<ApiEnv> = async (c, next) => {
  const read = readHop(c.req.header(hopHeader));
  if (!read.ok) throw new ApiError(400, "invalid_hop", read.message);
  const { hop } = read;
  if (hop > maxHops && c.req.method !== "GET") {
    throw new ApiError(508, "loop_detected", `This request is ${hop} agent hops deep (${hopHeader}); the gateway stops at ${maxHops} so agents and tools cannot loop forever`);
  }
  c.set("hop", Math.min(hop, maxHops));
  return next();
};
