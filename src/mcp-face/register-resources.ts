/**
 * The resources a face offers, as URI templates:
 *
 * - `switchboard://spaces/{spaceId}/messages`: the space's newest messages
 *   (oldest first), and `…/messages?afterSeq=&limit=` a page after a seq
 *   (both parameters given); the space endpoint's own space only, redacted
 *   for a token as `GET …/messages` redacts.
 * - `switchboard://runs/{runId}`: a run record, as `GET /api/runs/:runId`
 *   (secret key): on an agent's endpoint its own runs (the newest are
 *   listed), on a space's endpoint for the secret key only.
 * - `switchboard://agents/{agentId}/outputs/{handle}`: a whole tool output
 *   stored behind a handle (`read_output`'s), by byte range with
 *   `?offset=&limit=`; the agent endpoint's own outputs only.
 *
 * A resource outside the endpoint's scope, or a bad parameter, is an
 * `InvalidParams` error that says which.
 */
import { ErrorCode, McpError, type ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { runRecord } from "../api/agent-activity";
import { ApiError } from "../errors";
import { getDatabase } from "../db/client";
import { listRuns } from "../db/runs";
import { fullMessage, redactMessage } from "../protocol/message";
import { spaceStub } from "../spaces/space-stub";
import { readOutput } from "../tools";
import type { FaceContext } from "./face-context";
import type { FaceServer, Variables } from "./face-server";
import { agentRun } from "./register-agent-tools";
import { maxReadLimit } from "./register-space-tools";

const newestMessages = 100;
const defaultOutputPage = 32 * 1024;
const maxOutputPage = 64 * 1024;
const listedRuns = 20;

const json = (uri: URL, value: unknown): ReadResourceResult => ({ contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(value, null, 2) }] });

function invalid(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, message);
}

function variable(variables: Variables, name: string): string {
  const value = variables[name];
  const text = Array.isArray(value) ? value.join(",") : (value ?? "");
  return decodeURIComponent(text);
}

function integer(variables: Variables, name: string, minimum: number, maximum: number): number {
  const text = variable(variables, name);
  const value = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < minimum || value > maximum) throw invalid(`${name} must be a whole number from ${minimum} to ${maximum}`);
  return value;
}

/** A read's failure as a resource error: ours as they are, a REST helper's `ApiError` as what it says, anything else logged and never shown raw. */
async function reading(work: () => Promise<ReadResourceResult>): Promise<ReadResourceResult> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof McpError) throw error;
    if (error instanceof ApiError) throw invalid(error.message);
    console.error("an MCP face resource could not be read", error);
    throw new McpError(ErrorCode.InternalError, "Something went wrong on our side");
  }
}

/**
 * A byte range of a stored output. R2 refuses a range that starts past the
 * end; only then is the output's size read (its first byte), so a page past
 * the end is an empty page rather than a storage error.
 */
async function readOutputPage(bucket: R2Bucket, agentId: string, handle: string, range: { offset: number; limit: number }) {
  try {
    return await readOutput(bucket, agentId, handle, { offset: range.offset, length: range.limit });
  } catch (error) {
    if (range.offset === 0) throw error;
    const head = await readOutput(bucket, agentId, handle, { offset: 0, length: 1 });
    if (head.ok && range.offset >= head.output.bytes) return { ...head, output: { ...head.output, text: "" } };
    throw error;
  }
}

export function registerResources(server: FaceServer, context: FaceContext): void {
  if (context.face.kind === "space") registerSpaceResources(server, context, context.face.spaceId);
  else registerAgentResources(server, context, context.face.agentId);
}

function registerSpaceResources(server: FaceServer, context: FaceContext, spaceId: string): void {
  const show = context.caller.kind === "secret" ? fullMessage : redactMessage;
  const ownSpace = (variables: Variables) => {
    const asked = variable(variables, "spaceId");
    if (asked !== spaceId) throw invalid(`This endpoint serves space "${spaceId}", not "${asked}": use /mcp/spaces/${asked}`);
  };
  server.resource(
    "messages",
    "switchboard://spaces/{spaceId}/messages",
    { title: "A space's messages", description: `The newest ${newestMessages} messages of the space, oldest first`, mimeType: "application/json" },
    (uri, variables) =>
      reading(async () => {
        ownSpace(variables);
        const messages = await spaceStub(context.c.env, spaceId).recentMessages(newestMessages);
        return json(uri, { messages: messages.map(show) });
      }),
    () => [{ uri: `switchboard://spaces/${spaceId}/messages`, name: "messages", title: "The space's newest messages", mimeType: "application/json" }],
  );
  server.resource(
    "messages-page",
    "switchboard://spaces/{spaceId}/messages{?afterSeq,limit}",
    { title: "A page of a space's messages", description: `Messages after afterSeq, oldest first (limit 1 to ${maxReadLimit})`, mimeType: "application/json" },
    (uri, variables) =>
      reading(async () => {
        ownSpace(variables);
        const afterSeq = integer(variables, "afterSeq", 0, Number.MAX_SAFE_INTEGER);
        const limit = integer(variables, "limit", 1, maxReadLimit);
        const messages = (await spaceStub(context.c.env, spaceId).readMessages(afterSeq, limit)).map(show);
        return json(uri, { messages, nextAfterSeq: messages.at(-1)?.seq ?? afterSeq, hasMore: messages.length === limit });
      }),
  );
  // A run record is the secret key's (the run route's audience); a token's face has none.
  if (context.caller.kind !== "secret") return;
  server.resource("run", "switchboard://runs/{runId}", { title: "A run record", mimeType: "application/json" }, (uri, variables) =>
    reading(async () => {
      const runId = variable(variables, "runId");
      const run = await runRecord(context.c.env, new URL(context.c.req.url).origin, runId);
      if (!run) throw invalid(`Run "${runId}" not found`);
      return json(uri, run);
    }),
  );
}

function registerAgentResources(server: FaceServer, context: FaceContext, agentId: string): void {
  server.resource(
    "run",
    "switchboard://runs/{runId}",
    { title: "A run record of this agent", description: `The newest ${listedRuns} are listed`, mimeType: "application/json" },
    (uri, variables) => reading(async () => json(uri, await agentRun(context, agentId, variable(variables, "runId")))),
    async () =>
      (await listRuns(getDatabase(context.c.env.DB), agentId, listedRuns)).map((run) => ({
        uri: `switchboard://runs/${run.id}`,
        name: run.id,
        title: `Run ${run.id} (${run.status}, ${run.createdAt})`,
        mimeType: "application/json",
      })),
  );
  /** `rangeOf` reads the page's parameters inside the read, so a bad one is the read's error. */
  const output = (uri: URL, variables: Variables, rangeOf: () => { offset: number; limit: number }) =>
    reading(async () => {
      const range = rangeOf();
      const asked = variable(variables, "agentId");
      if (asked !== agentId) throw invalid(`This endpoint serves agent "${agentId}", not "${asked}"`);
      const handle = variable(variables, "handle");
      if (handle.includes("?")) throw invalid("A page of an output gives both offset and limit: …/outputs/{handle}?offset=0&limit=1024");
      const read = await readOutputPage(context.c.env.FILES, agentId, handle, range);
      if (!read.ok) throw invalid(read.message);
      const end = Math.min(read.output.bytes, range.offset + range.limit);
      return json(uri, {
        handle,
        toolName: read.output.toolName,
        bytes: read.output.bytes,
        offset: range.offset,
        text: read.output.text,
        nextOffset: end < read.output.bytes ? end : null,
        expiresAt: read.output.expiresAt,
      });
    });
  // The page first: the whole-output template's last variable would take a query string for part of the handle.
  server.resource(
    "output-page",
    "switchboard://agents/{agentId}/outputs/{handle}{?offset,limit}",
    { title: "A byte range of a stored tool output", description: `limit 1 to ${maxOutputPage} bytes`, mimeType: "application/json" },
    (uri, variables) => output(uri, variables, () => ({ offset: integer(variables, "offset", 0, Number.MAX_SAFE_INTEGER), limit: integer(variables, "limit", 1, maxOutputPage) })),
  );
  server.resource(
    "output",
    "switchboard://agents/{agentId}/outputs/{handle}",
    { title: "A stored tool output", description: `Its first ${defaultOutputPage} bytes; page with ?offset=&limit=`, mimeType: "application/json" },
    (uri, variables) => output(uri, variables, () => ({ offset: 0, limit: defaultOutputPage })),
  );
}
