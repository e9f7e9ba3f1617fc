/**
 * The direction dependencies point (AGENTS.md): api → agents / spaces → tools
 * → knowledge, models, webhooks, accounts → db; protocol, streams, security and auth
 * sit below them. A lower folder that needs something from a higher one
 * declares an interface instead (tools/engine/tool-context.ts,
 * protocol/space-port.ts, the webhook sender's `callStatus`).
 * `import type` counts too. Checked in CI by `npm run deps`.
 */
const below = (from, ...higher) => ({
  name: `${from}-not-above`,
  comment: `src/${from} must not depend on ${higher.join(", ")}`,
  severity: "error",
  from: { path: `^src/${from}/` },
  to: { path: `^src/(${higher.join("|")})/` },
});

/**
 * tools/ in floors, bottom up. A folder imports its own floor and the ones
 * below, never one above: the languages configs are written in, what a config
 * may say (pure: schemas and their checks, no runtime), the engine and the
 * clients tools use, the tools, and the providers that assemble a cycle's
 * tools. AGENTS.md says what each folder holds.
 */
const toolFloors = [
  ["json-schema", "templates"],
  ["config"],
  ["engine", "gateway", "http", "files", "images", "mcp", "a2a"],
  ["builtins", "prebuilt", "subagents", "openapi"],
  ["providers"],
];

const toolFloorRules = toolFloors.slice(0, -1).map((floor, index) => {
  const above = toolFloors.slice(index + 1).flat();
  return {
    name: `tools-${floor.join("-")}-not-above`,
    comment: `src/tools/{${floor.join(",")}} must not depend on tools/{${above.join(",")}}: a floor of tools/ imports only its own and lower ones`,
    severity: "error",
    from: { path: `^src/tools/(${floor.join("|")})/` },
    to: { path: `^src/tools/(${above.join("|")})/` },
  };
});

/**
 * agents/ in floors, bottom up: what an agent is outside its object (config,
 * record, lists, stubs), the object's durable state and its alarm (storage,
 * migrations, inbox events, the scheduler), the cycle and everything around
 * it (every other file), and the object that wires them (`agent-do.ts`,
 * imported by `src/index.ts` alone). `portable/` stands beside the object:
 * it uses only the bottom floor, and only the routes use it.
 */
const agentRecords = [
  "agent-config",
  "a2a-face-config",
  "agent-config-aliases",
  "catalogue-tool-settings",
  "agent-record",
  "agent-lists",
  "agent-stub",
  "agent-lifecycle",
  "delegate-task",
  "notify-membership",
  "reflection/reflection-config",
];
const agentStorage = ["agent-migrations", "agent-storage", "state-values", "inbox-event", "subagent-answer-deadline", "agent-scheduler", "next-alarm-at", "public-origin"];
const agentFiles = (names) => `^src/agents/(${names.join("|")})\\.ts$`;

const agentFloorRules = [
  {
    name: "agents-records-at-the-bottom",
    comment: `What an agent is outside its object (${agentRecords.join(", ")}) imports nothing else of agents/`,
    severity: "error",
    from: { path: agentFiles(agentRecords) },
    to: { path: "^src/agents/", pathNot: agentFiles(agentRecords) },
  },
  {
    name: "agents-storage-below-the-cycle",
    comment: `The object's storage and scheduler (${agentStorage.join(", ")}) import only each other and the records, never the cycle or the object`,
    severity: "error",
    from: { path: agentFiles(agentStorage) },
    to: { path: "^src/agents/", pathNot: agentFiles([...agentRecords, ...agentStorage]) },
  },
  {
    name: "agents-object-wires-alone",
    comment: "agents/agent-do.ts wires the parts; only src/index.ts imports it",
    severity: "error",
    from: { pathNot: "^src/index\\.ts$" },
    to: { path: "^src/agents/agent-do\\.ts$" },
  },
  {
    name: "agents-portable-beside-the-object",
    comment: "agents/portable (export and import) uses only what an agent is outside its object",
    severity: "error",
    from: { path: "^src/agents/portable/" },
    to: { path: "^src/agents/", pathNot: [agentFiles(agentRecords), "^src/agents/portable/"] },
  },
  {
    name: "agents-portable-for-the-routes",
    comment: "Nothing else in agents/ uses agents/portable: a cycle never exports or imports an agent",
    severity: "error",
    from: { path: "^src/agents/", pathNot: "^src/agents/portable/" },
    to: { path: "^src/agents/portable/" },
  },
];

module.exports = {
  forbidden: [
    ...agentFloorRules,
    ...toolFloorRules,
    {
      name: "tools-through-its-face",
      comment: "Outside tools/, tools are imported through their face (src/tools/index.ts), never a file behind it",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/tools/" },
      to: { path: "^src/tools/", pathNot: "^src/tools/index\\.ts$" },
    },
    {
      name: "tools-files-stand-on-a-floor",
      comment: "Every file of tools/ is in a floor's folder; the root holds the face alone",
      severity: "error",
      from: {},
      to: { path: "^src/tools/[^/]+$", pathNot: "^src/tools/index\\.ts$" },
    },
    {
      name: "tools-face-is-outside-only",
      comment: "Inside tools/, files import each other, never the face (it imports all of them)",
      severity: "error",
      from: { path: "^src/tools/" },
      to: { path: "^src/tools/index\\.ts$" },
    },
    {
      name: "tools-config-is-pure",
      comment:
        "What a config may say (tools/config, and the languages beneath it: tools/templates, tools/json-schema) imports no runtime: only each other, the pure policies of security/ and protocol/, the model schemas and the JSON helpers",
      severity: "error",
      from: { path: "^src/tools/(config|templates|json-schema)/" },
      to: {
        path: "^src/",
        pathNot: [
          "^src/tools/(config|templates|json-schema)/",
          "^src/security/(url-policy|secret-policy|storage-path)\\.ts$",
          "^src/security/safe-pattern/",
          "^src/protocol/hop\\.ts$",
          "^src/models/(model-config|image-model-config)\\.ts$",
          "^src/json\\.ts$",
        ],
      },
    },
    {
      name: "no-circular",
      comment: "No module imports itself through others at run time (a cycle of type-only imports erases to nothing)",
      severity: "error",
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
    {
      name: "mcp-face-wired-by-the-app",
      comment: "src/mcp-face (the MCP server face) stands above the routes it reuses: only api/app.ts mounts it, nothing else imports it",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/mcp-face/", "^src/a2a/", "^src/api/app\\.ts$"] },
      to: { path: "^src/mcp-face/" },
    },
    {
      name: "a2a-face-wired-by-the-app",
      comment:
        "src/a2a (the Agent2Agent face) stands above the routes it reuses, as the MCP face does (whose authentication and agent-stream reader it shares): only api/app.ts mounts it",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/a2a/", "^src/api/app\\.ts$"] },
      to: { path: "^src/a2a/" },
    },
    below("agents", "api"),
    below("spaces", "api", "agents"),
    below("tools", "api", "agents", "spaces"),
    below("knowledge", "api", "agents", "spaces", "tools", "webhooks"),
    below("models", "api", "agents", "spaces", "tools", "knowledge", "webhooks"),
    below("webhooks", "api", "agents", "spaces", "tools", "knowledge", "models"),
    // accounts/ (the OAuth client and the connected accounts' tokens) sits above db/ and below the tools that will use it.
    below("accounts", "api", "agents", "spaces", "tools", "knowledge", "models", "webhooks"),
    below("db", "api", "agents", "spaces", "tools", "knowledge", "models", "webhooks"),
    below("protocol", "api", "agents", "spaces", "tools", "knowledge", "models", "webhooks", "db", "streams"),
    below("streams", "api", "agents", "spaces", "tools", "knowledge", "models", "webhooks", "db"),
    below("security", "api", "agents", "spaces", "tools", "knowledge", "models", "webhooks", "db", "streams"),
    below("auth", "api", "agents", "spaces", "tools", "knowledge", "models", "webhooks"),
    // telemetry/ (spans, their export, trace context) is a leaf: everything above may make spans, it knows none of them.
    below("telemetry", "api", "agents", "spaces", "tools", "knowledge", "models", "webhooks", "accounts", "db", "streams", "auth", "mcp-face", "a2a"),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // TypeScript 7 has no compiler API yet: swc parses the sources (type-only imports included).
    parser: "swc",
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: [".ts", ".mjs", ".js"] },
  },
};
