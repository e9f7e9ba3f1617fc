/**
 * The push notification config methods of the A2A face
 * (`CreateTaskPushNotificationConfig`, `GetTaskPushNotificationConfig`,
 * `ListTaskPushNotificationConfigs`, `DeleteTaskPushNotificationConfig`),
 * and the config a `SendMessage` gives for its new task. A config belongs to
 * one task the caller may see; its URL passes the gateway's URL policy when
 * it is created (and again before each push); its credentials are kept in
 * D1 and sent as the protocol says (`webhooks/a2a-task-push.ts` pushes).
 */
import { z } from "zod";
import { getDatabase } from "../db/client";
import { originOf } from "../security/pinned-request";
import { outboundUrlProblem, urlPolicyOf } from "../security/url-policy";
import { type A2aPushConfig, deletePushConfig, getPushConfig, listPushConfigs, maxPushConfigsPerTask, putPushConfig } from "../webhooks/a2a-push-configs";
import { invalidParams, RpcError, rpcErrorCodes, taskNotFound } from "./json-rpc";
import type { AgentRecord } from "../agents/agent-record";
import type { ApiContext } from "../api/context";
import type { A2aCaller } from "./conversation";
import { loadTask, type TaskRecord } from "./task-view";

type A2aRequest = { c: ApiContext; caller: A2aCaller; agent: AgentRecord };

const Id = z.string().min(1).max(200);
const Tenant = z.string().max(200).optional();
/** What may go in a header value: visible ASCII, inner spaces allowed (never a line break). */
const HeaderText = z.string().regex(/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/, "Visible ASCII characters only (it is sent in a header)");

export const PushConfigInput = z.object({
  tenant: Tenant,
  /** Empty: the gateway makes one. */
  id: z.union([Id, z.literal("")]).optional(),
  /** Empty in a SendMessage's configuration (the task does not exist yet). */
  taskId: z.string().max(200).optional(),
  url: z.string().min(1).max(4096),
  token: z.union([HeaderText.max(1000), z.literal("")]).optional(),
  authentication: z
    .object({
      scheme: z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,50}$/, "An HTTP authentication scheme, such as Bearer or Basic"),
      credentials: z.union([HeaderText.max(4000), z.literal("")]).optional(),
    })
    .optional(),
});
export type PushConfigInput = z.infer<typeof PushConfigInput>;

const ConfigRef = z.object({ tenant: Tenant, taskId: Id, id: Id });
const ListParams = z.object({ tenant: Tenant, taskId: Id, pageSize: z.number().int().min(0).max(1000).optional(), pageToken: z.string().max(200).optional() });

function parse<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) throw invalidParams(parsed.error.issues);
  return parsed.data;
}

/** The config as the protocol shows it. */
function shown(config: A2aPushConfig) {
  return {
    id: config.id,
    taskId: config.taskId,
    url: config.url,
    ...(config.token !== null && { token: config.token }),
    ...(config.authScheme !== null && { authentication: { scheme: config.authScheme, ...(config.authCredentials !== null && { credentials: config.authCredentials }) } }),
  };
}

async function visibleTask(request: A2aRequest, taskId: string): Promise<TaskRecord> {
  const record = await loadTask(request.c.env, request.agent, request.caller, taskId);
  if (!record) throw taskNotFound(taskId);
  return record;
}

/** A config given with a `SendMessage`, checked before the message is posted (nothing is half-done when it is refused). */
export function pushConfigOf(request: A2aRequest, given: unknown): PushConfigInput | undefined {
  if (given === undefined || given === null) return undefined;
  const input = parse(PushConfigInput, given);
  checkPushUrl(request, input.url);
  return input;
}

/** The URL must be one the gateway calls (its URL policy; checked again before each push). */
function checkPushUrl(request: A2aRequest, url: string): void {
  const refused = originOf(url) === undefined ? "it is not an absolute http(s) URL" : outboundUrlProblem(url, urlPolicyOf(request.c.env));
  if (refused !== undefined) throw new RpcError(rpcErrorCodes.invalidParams, `Invalid parameters: url: the gateway does not push to this URL: ${refused}`);
}

/** Stores a config for a task the caller may see. */
export async function storePushConfig(request: A2aRequest, task: { taskId: string; contextId: string }, input: PushConfigInput) {
  const { env } = request.c;
  checkPushUrl(request, input.url);
  const row: A2aPushConfig = {
    taskId: task.taskId,
    id: input.id || crypto.randomUUID(),
    agentId: request.agent.id,
    contextId: task.contextId,
    url: input.url,
    token: input.token || null,
    authScheme: input.authentication?.scheme ?? null,
    authCredentials: input.authentication?.credentials || null,
    createdAt: new Date().toISOString(),
  };
  if (!(await putPushConfig(getDatabase(env.DB), row)))
    throw new RpcError(
      rpcErrorCodes.invalidParams,
      `Invalid parameters: task "${row.taskId}" has ${maxPushConfigsPerTask} push notification configs already (the most it may have)`,
    );
  return shown(row);
}

export async function createPushConfig(request: A2aRequest, params: unknown) {
  const input = parse(PushConfigInput, params);
  if (!input.taskId) throw new RpcError(rpcErrorCodes.invalidParams, "Invalid parameters: taskId: the task the config is for is required");
  const record = await visibleTask(request, input.taskId);
  return storePushConfig(request, { taskId: record.run.id, contextId: record.contextId }, input);
}

export async function getPushConfigOf(request: A2aRequest, params: unknown) {
  const { taskId, id } = parse(ConfigRef, params);
  await visibleTask(request, taskId);
  const config = await getPushConfig(getDatabase(request.c.env.DB), taskId, id);
  if (!config) throw new RpcError(rpcErrorCodes.taskNotFound, `Task "${taskId}" has no push notification config "${id}"`);
  return shown(config);
}

/** Every config of the task (at most ten: one page). */
export async function listPushConfigsOf(request: A2aRequest, params: unknown) {
  const { taskId } = parse(ListParams, params);
  await visibleTask(request, taskId);
  return { configs: (await listPushConfigs(getDatabase(request.c.env.DB), taskId)).map(shown) };
}

/** Deleting a config that is not there is not an error (the protocol asks for idempotent deletes); the task must be there. */
export async function deletePushConfigOf(request: A2aRequest, params: unknown): Promise<null> {
  const { taskId, id } = parse(ConfigRef, params);
  await visibleTask(request, taskId);
  await deletePushConfig(getDatabase(request.c.env.DB), taskId, id);
  return null;
}
