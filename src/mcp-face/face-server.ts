/**
 * The face's MCP server: the SDK's low-level `Server` with one handler per
 * method the face answers (tools/list, tools/call, resources/list,
 * resources/templates/list, resources/read), and the tools and resource
 * templates a request registers. Not the SDK's `McpServer`: its helpers
 * (completions, prompts, tasks, tool-name checks, list-changed
 * notifications a stateless server could never send) are code the Worker
 * would carry for nothing.
 *
 * A tool's input is a zod 4 schema: it validates the arguments, and
 * `tools/list` describes it with zod's own `toJSONSchema` (draft 7, the
 * input side: a defaulted field is optional), so what a client is shown
 * and what is checked cannot drift apart. Bad arguments are a tool error
 * that names each field, as MCP wants a tool's own failures reported.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { UriTemplate, type Variables } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  CancelTaskRequestSchema,
  type CreateTaskResult,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type Resource,
  type Task,
  type Tool,
  type ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { JSONSchema } from "zod/v4/core";
import { McpSchemaValidator } from "../tools";
import type { ToolExtra } from "./progress-reporter";

export type { Variables };

type ToolSpec<Input extends z.ZodType> = {
  description: string;
  inputSchema: Input;
  annotations?: ToolAnnotations;
  /** The tool may run as a task: a client that asks for one gets what this starts, at once. */
  task?: (input: z.output<Input>, extra: ToolExtra) => Promise<CreateTaskResult>;
};
type RegisteredTool = {
  definition: Tool;
  call: (args: unknown, extra: ToolExtra) => Promise<CallToolResult>;
  startTask?: (args: unknown, extra: ToolExtra) => Promise<CreateTaskResult>;
};

/** What the face answers for its tasks (`face-tasks.ts`): they are read from durable state, not a store the SDK keeps. */
export type TaskHandlers = {
  get: (taskId: string) => Promise<Task>;
  result: (taskId: string, extra: ToolExtra) => Promise<CallToolResult>;
  cancel: (taskId: string) => Promise<Task>;
};

type ResourceMetadata = { title: string; description?: string; mimeType: string };
type ListedResource = Omit<Resource, "name"> & { name: string };
type RegisteredTemplate = {
  name: string;
  template: UriTemplate;
  metadata: ResourceMetadata;
  list?: () => Promise<ListedResource[]> | ListedResource[];
  read: (uri: URL, variables: Variables) => Promise<ReadResourceResult>;
};

function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

/** zod's issues as one line each, with the path of the field when there is one. */
function issuesText(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length > 0 ? `${issue.message} at ${issue.path.map(String).join(".")}` : issue.message)).join("\n");
}

export class FaceServer {
  readonly server: Server;
  readonly #tools = new Map<string, RegisteredTool>();
  readonly #templates: RegisteredTemplate[] = [];

  constructor(info: { name: string; version: string }, instructions: string, tasks: TaskHandlers) {
    this.server = new Server(info, {
      // Tasks: `tools/call` may ask for one (ask_agent), and a task may be cancelled; there is no list (a task id is its caller's to keep).
      capabilities: { tools: {}, resources: {}, tasks: { cancel: {}, requests: { tools: { call: {} } } } },
      instructions,
      // The SDK's default validator is ajv, which cannot run on Workers; this server never validates a schema of its own, but one must be given.
      jsonSchemaValidator: new McpSchemaValidator(),
    });
    this.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...this.#tools.values()].map((tool) => tool.definition) }));
    this.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const tool = this.#tools.get(request.params.name);
      if (request.params.task) {
        if (!tool?.startTask) throw new McpError(ErrorCode.MethodNotFound, `Tool ${request.params.name} does not run as a task: call it without "task"`);
        return tool.startTask(request.params.arguments ?? {}, extra);
      }
      if (!tool) return toolError(`Tool ${request.params.name} not found`);
      return tool.call(request.params.arguments ?? {}, extra);
    });
    this.server.setRequestHandler(GetTaskRequestSchema, (request) => tasks.get(request.params.taskId));
    this.server.setRequestHandler(GetTaskPayloadRequestSchema, (request, extra) => tasks.result(request.params.taskId, extra));
    this.server.setRequestHandler(CancelTaskRequestSchema, (request) => tasks.cancel(request.params.taskId));
    this.server.setRequestHandler(ListResourcesRequestSchema, async () => {
      const resources: Resource[] = [];
      for (const entry of this.#templates) {
        for (const resource of (await entry.list?.()) ?? []) resources.push({ ...entry.metadata, ...resource });
      }
      return { resources };
    });
    this.server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
      resourceTemplates: this.#templates.map((entry) => ({ name: entry.name, uriTemplate: entry.template.toString(), ...entry.metadata })),
    }));
    this.server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      const uri = new URL(request.params.uri);
      // In the order they were registered: the first template that matches reads it.
      for (const entry of this.#templates) {
        const variables = entry.template.match(uri.toString());
        if (variables) return entry.read(uri, variables);
      }
      throw new McpError(ErrorCode.InvalidParams, `Resource ${uri} not found`);
    });
  }

  tool<Input extends z.ZodType<Record<string, unknown>>>(name: string, spec: ToolSpec<Input>, run: (input: z.output<Input>, extra: ToolExtra) => Promise<CallToolResult>): void {
    const { properties, ...inputSchema } = z.toJSONSchema(spec.inputSchema, { target: "draft-7", io: "input" });
    const start = spec.task;
    this.#tools.set(name, {
      definition: {
        name,
        description: spec.description,
        inputSchema: { ...inputSchema, type: "object", ...(properties && { properties: schemaObjects(properties) }) },
        ...(spec.annotations && { annotations: spec.annotations }),
        ...(spec.task && { execution: { taskSupport: "optional" as const } }),
      },
      call: async (args, extra) => {
        const parsed = await spec.inputSchema.safeParseAsync(args);
        if (!parsed.success) return toolError(`Input validation error: Invalid arguments for tool ${name}: ${issuesText(parsed.error)}`);
        return run(parsed.data, extra);
      },
      ...(start && {
        startTask: async (args: unknown, extra: ToolExtra) => {
          const parsed = await spec.inputSchema.safeParseAsync(args);
          // No task is made for arguments that would fail: the error is the request's own.
          if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for tool ${name}: ${issuesText(parsed.error)}`);
          return start(parsed.data, extra);
        },
      }),
    });
  }

  resource(name: string, uriTemplate: string, metadata: ResourceMetadata, read: RegisteredTemplate["read"], list?: RegisteredTemplate["list"]): void {
    this.#templates.push({ name, template: new UriTemplate(uriTemplate), metadata, read, ...(list && { list }) });
  }
}

/** A boolean subschema as the object schema it means (`true` is `{}`, `false` is `{"not": {}}`): MCP's type wants objects. */
function schemaObjects(properties: Record<string, JSONSchema.JSONSchema | boolean>): Record<string, object> {
  return Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, typeof schema === "boolean" ? (schema ? {} : { not: {} }) : schema]));
}
