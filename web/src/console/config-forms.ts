/**
 * Small forms beside the config editor that write into its JSON: the model
 * (provider, model name, and the *name* of the secret with its key), a tool,
 * an MCP server. They change the text only; saving sends it, and the
 * gateway checks it whole.
 */
import { h } from "../dom";
import type { ConfigEditor } from "./config-editor";

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

const secretName = /^[A-Z][A-Z0-9_]{0,63}$/;
const toolName = /^[a-zA-Z0-9_-]{1,64}$/;

const providers = [
  { id: "openai", model: "gpt-4.1-mini", key: "OPENAI_API_KEY", baseURL: false },
  { id: "anthropic", model: "claude-sonnet-4-5", key: "ANTHROPIC_API_KEY", baseURL: false },
  { id: "openai-compatible", model: "llama3.1", key: "", baseURL: true },
  { id: "workers-ai", model: "@cf/meta/llama-3.1-8b-instruct", key: "", baseURL: false },
  { id: "scripted", model: "", key: "", baseURL: false },
] as const;

/** Reads the editor's JSON object, lets `change` edit it (or say why not), and writes it back indented. */
function editConfig(editor: ConfigEditor, outcome: HTMLElement, done: string, change: (config: JsonObject) => string | undefined): boolean {
  outcome.textContent = "";
  outcome.classList.remove("refused");
  const value = editor.read();
  const refusal = value === undefined ? "Fix the JSON first (the error is shown at its line)." : !isObject(value) ? "The config must be a JSON object." : change(value);
  outcome.textContent = refusal ?? `${done} in the JSON: save to keep it.`;
  outcome.classList.toggle("refused", refusal !== undefined);
  if (refusal !== undefined) return false;
  editor.text = JSON.stringify(value, null, 2);
  return true;
}

const field = (label: string, control: HTMLElement, hint?: string) => h("label", { class: "field" }, h("span", {}, label), control, hint ? h("small", {}, hint) : null);

const namesList = (text: string) =>
  text
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name.length > 0);

/** The model: provider, model name, the secret's name (never its value), and the base URL where one is needed. */
export function modelForm(editor: ConfigEditor): HTMLElement {
  const current = editor.read();
  const model = isObject(current) && isObject(current.model) ? current.model : {};
  const provider = h("select", { name: "provider", id: "model-provider" }, ...providers.map((entry) => h("option", { value: entry.id }, entry.id)));
  provider.value = typeof model.provider === "string" && providers.some((entry) => entry.id === model.provider) ? model.provider : "openai";
  const name = h("input", { name: "modelName", id: "model-name", autocomplete: "off" });
  const apiKeyEnv = h("input", { name: "apiKeyEnv", id: "model-api-key-env", autocomplete: "off", spellcheck: "false" });
  const baseURL = h("input", { name: "baseURL", id: "model-base-url", autocomplete: "off", type: "url" });
  name.value = typeof model.name === "string" ? model.name : "";
  apiKeyEnv.value = typeof model.apiKeyEnv === "string" ? model.apiKeyEnv : "";
  baseURL.value = typeof model.baseURL === "string" ? model.baseURL : "";
  const outcome = h("div", { class: "form-outcome", role: "status" });
  const showFields = () => {
    const entry = providers.find((candidate) => candidate.id === provider.value) ?? providers[0];
    name.placeholder = entry.model || "(optional)";
    apiKeyEnv.placeholder = entry.key || "none needed";
    baseURL.placeholder = entry.baseURL ? "http://localhost:11434/v1" : "(optional)";
    baseURL.closest("label")?.toggleAttribute("hidden", entry.id === "scripted" || entry.id === "workers-ai");
    apiKeyEnv.closest("label")?.toggleAttribute("hidden", entry.id === "scripted" || entry.id === "workers-ai");
  };
  provider.addEventListener("change", () => {
    const entry = providers.find((candidate) => candidate.id === provider.value) ?? providers[0];
    name.value = entry.model;
    apiKeyEnv.value = entry.key;
    showFields();
  });
  const form = h(
    "form",
    {
      class: "config-form",
      id: "model-form",
      onsubmit: (event: Event) => {
        event.preventDefault();
        editConfig(editor, outcome, "Model set", (config) => {
          const key = apiKeyEnv.value.trim();
          if (key && !secretName.test(key)) return "apiKeyEnv is the NAME of a Worker secret (like OPENAI_API_KEY), never the key itself.";
          const previous = isObject(config.model) ? config.model : {};
          if (provider.value === "scripted") {
            config.model = { provider: "scripted", ...(name.value.trim() && { name: name.value.trim() }), turns: Array.isArray(previous.turns) ? previous.turns : [] };
            return undefined;
          }
          if (!name.value.trim()) return "Name the model (e.g. gpt-4.1-mini).";
          const next: JsonObject = { provider: provider.value, name: name.value.trim() };
          if (key) next.apiKeyEnv = key;
          if (baseURL.value.trim() && provider.value !== "workers-ai") next.baseURL = baseURL.value.trim();
          // Settings that mean the same to every provider stay.
          for (const setting of ["temperature", "maxOutputTokens"]) if (previous[setting] !== undefined) next[setting] = previous[setting];
          config.model = next;
          return undefined;
        });
      },
    },
    h("h3", {}, "Model"),
    field("Provider", provider),
    field("Model", name),
    field("Key's secret name (apiKeyEnv)", apiKeyEnv, "The name of the Worker secret that holds the key; the key itself never goes in a config."),
    field("Base URL", baseURL),
    h("button", { type: "submit", class: "secondary" }, "Set model"),
    outcome,
  );
  showFields();
  return form;
}

/** A tool: name, description, how it runs, and its arguments (strings, all required; refine the schema in the JSON). */
export function toolForm(editor: ConfigEditor): HTMLElement {
  const name = h("input", { name: "toolName", id: "tool-name", autocomplete: "off", placeholder: "get_weather" });
  const description = h("input", { name: "toolDescription", id: "tool-description", autocomplete: "off", placeholder: "Current weather for a city" });
  const executionType = h(
    "select",
    { name: "executionType", id: "tool-execution-type" },
    h("option", { value: "gateway" }, "gateway: the gateway calls a URL"),
    h("option", { value: "external" }, "external: a service answers"),
    h("option", { value: "space" }, "space: a person answers on a card"),
    h("option", { value: "internal" }, "internal: your code answers on the agent stream"),
  );
  const url = h("input", { name: "toolUrl", id: "tool-url", autocomplete: "off", type: "url", placeholder: "https://api.example.com/weather?city={{city}}" });
  const method = h("select", { name: "method", id: "tool-method" }, ...["GET", "POST", "PUT", "PATCH", "DELETE"].map((verb) => h("option", { value: verb }, verb)));
  const argumentNames = h("input", { name: "arguments", id: "tool-arguments", autocomplete: "off", placeholder: "city, date" });
  const outcome = h("div", { class: "form-outcome", role: "status" });
  const showFields = () => {
    method.closest("label")?.toggleAttribute("hidden", executionType.value !== "gateway");
    url.closest("label")?.toggleAttribute("hidden", executionType.value === "internal");
    const label = url.closest("label")?.querySelector("span");
    if (label) label.textContent = executionType.value === "gateway" ? "URL" : "Webhook (optional: where each call is pushed)";
  };
  executionType.addEventListener("change", showFields);
  const form = h(
    "form",
    {
      class: "config-form",
      id: "tool-form",
      onsubmit: (event: Event) => {
        event.preventDefault();
        const added = editConfig(editor, outcome, "Tool added", (config) => {
          const tool = name.value.trim();
          if (!toolName.test(tool)) return "A tool name is 1–64 letters, digits, _ or -.";
          if (!description.value.trim()) return "Describe the tool: the model reads it.";
          if (executionType.value === "gateway" && !url.value.trim()) return "A gateway tool needs the URL it calls.";
          const names = namesList(argumentNames.value);
          const properties: JsonObject = {};
          for (const argument of names) properties[argument] = { type: "string" };
          const entry: JsonObject = {
            name: tool,
            description: description.value.trim(),
            executionType: executionType.value,
            inputSchema: { type: "object", properties, ...(names.length > 0 && { required: names }) },
          };
          if (executionType.value === "gateway") entry.execution = { url: url.value.trim(), method: method.value };
          else if (url.value.trim() && executionType.value !== "internal") entry.execution = { webhook: url.value.trim() };
          const tools = Array.isArray(config.tools) ? config.tools : [];
          if (tools.some((existing) => isObject(existing) && existing.name === tool)) return `There is already a tool "${tool}".`;
          config.tools = [...tools, entry];
          return undefined;
        });
        if (added) {
          form.reset();
          showFields();
        }
      },
    },
    h("h3", {}, "Add a tool"),
    field("Name", name),
    field("Description", description),
    field("Runs as", executionType),
    field("URL", url),
    field("Method", method),
    field("Arguments", argumentNames, "Names, comma-separated: strings, all required (refine the schema in the JSON)."),
    h("button", { type: "submit", class: "secondary" }, "Add tool"),
    outcome,
  );
  showFields();
  return form;
}

/** An MCP server: name, URL, transport, the tools it may offer, and the secret (by name) its bearer token is in. */
export function mcpServerForm(editor: ConfigEditor): HTMLElement {
  const name = h("input", { name: "serverName", id: "mcp-name", autocomplete: "off", placeholder: "docs" });
  const url = h("input", { name: "serverUrl", id: "mcp-url", autocomplete: "off", type: "url", placeholder: "https://mcp.example.com/mcp" });
  const transport = h("select", { name: "transport", id: "mcp-transport" }, h("option", { value: "http" }, "Streamable HTTP"), h("option", { value: "sse" }, "SSE"));
  const allowed = h("input", { name: "allowedTools", id: "mcp-allowed-tools", autocomplete: "off", placeholder: "all" });
  const tokenSecret = h("input", { name: "tokenSecret", id: "mcp-token-secret", autocomplete: "off", spellcheck: "false", placeholder: "none" });
  const outcome = h("div", { class: "form-outcome", role: "status" });
  const form = h(
    "form",
    {
      class: "config-form",
      id: "mcp-form",
      onsubmit: (event: Event) => {
        event.preventDefault();
        const added = editConfig(editor, outcome, "MCP server added", (config) => {
          const server = name.value.trim();
          if (!/^[a-zA-Z0-9_-]{1,32}$/.test(server)) return "A server name is 1–32 letters, digits, _ or -; its tools become name__tool.";
          if (!url.value.trim()) return "Give the server's URL.";
          const secret = tokenSecret.value.trim();
          if (secret && !secretName.test(secret)) return "The token is named by its Worker secret (like DOCS_MCP_TOKEN), never given here.";
          const entry: JsonObject = { name: server, url: url.value.trim() };
          if (transport.value !== "http") entry.transport = transport.value;
          const tools = namesList(allowed.value);
          if (tools.length > 0) entry.allowedTools = tools;
          if (secret) entry.headers = { Authorization: `Bearer \${env.${secret}}` };
          const mcp = isObject(config.mcp) ? config.mcp : {};
          const servers = Array.isArray(mcp.servers) ? mcp.servers : [];
          if (servers.some((existing) => isObject(existing) && existing.name === server)) return `There is already an MCP server "${server}".`;
          config.mcp = { ...mcp, servers: [...servers, entry] };
          return undefined;
        });
        if (added) form.reset();
      },
    },
    h("h3", {}, "Add an MCP server"),
    field("Name", name),
    field("URL", url),
    field("Transport", transport),
    field("Allowed tools", allowed, "Comma-separated; empty: every tool the server lists."),
    field("Bearer token's secret name", tokenSecret, "Sent as Authorization: Bearer ${env.NAME}; the secret must be set when you save."),
    h("button", { type: "submit", class: "secondary" }, "Add MCP server"),
    outcome,
  );
  return form;
}
