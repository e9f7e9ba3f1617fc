/**
 * The push notification config methods of the A2A face
 * (`CreateTaskPushNotificationConfig`, `GetTaskPushNotificationConfig`,
 * `ListTaskPushNotificationConfigs`, `DeleteTaskPushNotificationConfig`),
 * and the config a `SendMessage` gives for its new task. A config belongs to
 * one task the caller may see; its URL passes the gateway's URL policy when
 * it is created (and again before each push); its credentials are sealed in
 * D1 with the accounts key (`webhooks/a2a-push-configs.ts`), opened to be
 * sent as the protocol says (`webhooks/a2a-task-push.ts` pushes) and to be
 * shown back to the caller, as the protocol's Get and List return a config
 * whole.
 */
import { z } from "zod";
import { AccountsKeysError } from "../accounts/token-cipher";
import { getDatabase } from "../db/client";
import { originOf } from "../security/pinned-request";
import { outboundUrlProblem, urlPolicyOf } from "../security/url-policy";
import {
  type A2aPushConfig,
  deletePushConfig,
  getPushConfig,
  listPushConfigs,
  maxPushConfigsPerTask,
  openPushCredentials,
  type PushCredentials,
  putPushConfig,
  sealPushCredentials,
} from "../webhooks/a2a-push-configs";
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

/** The config as the protocol shows it, its credentials as its caller gave them. */
function shownWith(config: A2aPushConfig, credentials: PushCredentials) {
  return {
    id: config.id,
    taskId: config.taskId,
    url: config.url,
    ...(credentials.token !== null && { token: credentials.token }),
    ...(config.authScheme !== null && {
      authentication: { scheme: config.authScheme, ...(credentials.authCredentials !== null && { credentials: credentials.authCredentials }) },
    }),
  };
}

/** A stored config as the protocol shows it: its credentials opened (a failure to open is the gateway's, said without what they hold). */
async function shown(request: A2aRequest, config: A2aPushConfig) {
  const credentials = await openPushCredentials(request.c.env, config);
  if (!credentials.ok) throw new RpcError(rpcErrorCodes.internalError, credentials.message);
  return shownWith(config, credentials);
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

/**
 * Stores a config for a task the caller may see, its credentials sealed.
 * `id` is the config's when its input names none (a `SendMessage`'s, derived
 * from the message, so a retried message replaces its config).
 */
export async function storePushConfig(request: A2aRequest, task: { taskId: string; contextId: string }, input: PushConfigInput, id = crypto.randomUUID()) {
  const { env } = request.c;
  checkPushUrl(request, input.url);
  const key = { taskId: task.taskId, id: input.id || id };
  const credentials: PushCredentials = { token: input.token || null, authCredentials: input.authentication?.credentials || null };
  let sealed: Awaited<ReturnType<typeof sealPushCredentials>>;
  try {
    sealed = await sealPushCredentials(env, key, credentials);
  } catch (error) {
    // Credentials are never kept in clear: without a key to seal them, the config is refused.
    if (error instanceof AccountsKeysError)
      throw new RpcError(
        rpcErrorCodes.internalError,
        `This gateway cannot keep push notification credentials (token, authentication.credentials): ACCOUNTS_KEYS ${error.problem}. Give the config without them, or ask its operator to set ACCOUNTS_KEYS`,
      );
    throw error;
  }
  const row: A2aPushConfig = {
    ...key,
    agentId: request.agent.id,
    contextId: task.contextId,
    url: input.url,
    authScheme: input.authentication?.scheme ?? null,
    ...sealed,
    createdAt: new Date().toISOString(),
  };
  if (!(await putPushConfig(getDatabase(env.DB), row)))
    throw new RpcError(
      rpcErrorCodes.invalidParams,
      `Invalid parameters: task "${row.taskId}" has ${maxPushConfigsPerTask} push notification configs already (the most it may have)`,
    );
  return shownWith(row, credentials);
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
  return shown(request, config);
}

/** Every config of the task (at most ten: one page). */
export async function listPushConfigsOf(request: A2aRequest, params: unknown) {
  const { taskId } = parse(ListParams, params);
  await visibleTask(request, taskId);
  const configs = await listPushConfigs(getDatabase(request.c.env.DB), taskId);
  return { configs: await Promise.all(configs.map((config) => shown(request, config))) };
}

/** Deleting a config that is not there is not an error (the protocol asks for idempotent deletes); the task must be there. */
export async function deletePushConfigOf(request: A2aRequest, params: unknown): Promise<null> {
  const { taskId, id } = parse(ConfigRef, params);
  await visibleTask(request, taskId);
  await deletePushConfig(getDatabase(request.c.env.DB), taskId, id);
  return null;
}
