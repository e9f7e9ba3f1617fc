/**
 * The catalogue's tool settings (docs/seeds.md): its config file
 * gathers them in a `tools` object, where an agent here has its list of
 * tools. Converted from YAML to JSON (the gateway reads JSON only), such a
 * config is rewritten to the fields here before it is checked, and stored
 * under them:
 *
 * | written | stored | because |
 * |---|---|---|
 * | `tools.timeout` | `limits.toolTimeout` | how long one tool call may take (ms) |
 * | `tools.maxConcurrent` | `limits.maxConcurrentTools` | calls run at once |
 * | `tools.allowedPaths: ["./data"]` | `files.prefixes: ["data/"]` | the folders the file tools may use: here folders of the shared files area, not of a disk |
 * | `tools.webSearch` | `webSearch` | the search API and its key |
 * | `tools.mcpServers: [{name, …}]` | `mcp.servers` | the same list; `stdio` servers are refused by the check, with the transports a Worker has |
 * | `apiKey: "${NAME}"` (web search) | `"${env.NAME}"` | a Worker secret, named the one way the gateway names secrets |
 *
 * A setting given both ways (`tools.timeout` beside `limits.toolTimeout`) is
 * left in `tools`, so the check refuses it rather than one silently winning;
 * so is any setting not in the table.
 */

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** `${NAME}` as the whole value: the catalogue's way to name an environment variable. */
const bareSecret = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** `./data` → `data/`: a folder relative to the agent's files, as the files settings write it; anything else as it is. */
function folderPrefix(path: unknown): unknown {
  if (typeof path !== "string") return path;
  const relative = path.replace(/^(\.\/)+/, "");
  if (relative === "" || relative === ".") return path;
  return relative.endsWith("/") ? relative : `${relative}/`;
}

/** A web search setting with a bare `${NAME}` key named as `${env.NAME}`. */
export function normalizeWebSearch(webSearch: unknown): unknown {
  if (!isRecord(webSearch) || typeof webSearch.apiKey !== "string") return webSearch;
  const name = bareSecret.exec(webSearch.apiKey)?.[1];
  return name === undefined ? webSearch : { ...webSearch, apiKey: `\${env.${name}}` };
}

/** Where each catalogue setting goes: whether that place is already taken, and the config with it placed. */
const placements: Record<string, { taken: (config: Json) => boolean; place: (config: Json, value: unknown) => Json }> = {
  timeout: {
    taken: (config) => isRecord(config.limits) && "toolTimeout" in config.limits,
    place: (config, value) => ({ ...config, limits: { ...(isRecord(config.limits) ? config.limits : {}), toolTimeout: value } }),
  },
  maxConcurrent: {
    taken: (config) => isRecord(config.limits) && "maxConcurrentTools" in config.limits,
    place: (config, value) => ({ ...config, limits: { ...(isRecord(config.limits) ? config.limits : {}), maxConcurrentTools: value } }),
  },
  allowedPaths: {
    taken: (config) => isRecord(config.files) && "prefixes" in config.files,
    place: (config, value) => ({
      ...config,
      files: { ...(isRecord(config.files) ? config.files : {}), prefixes: Array.isArray(value) ? value.map(folderPrefix) : value },
    }),
  },
  webSearch: {
    taken: (config) => "webSearch" in config,
    place: (config, value) => ({ ...config, webSearch: value }),
  },
  mcpServers: {
    taken: (config) => "mcp" in config || "mcpServers" in config,
    place: (config, value) => ({ ...config, mcp: { servers: value } }),
  },
};

/** An agent config whose `tools` is the catalogue's settings object, with them in their places here; anything else as it is. */
export function liftCatalogueToolSettings(raw: Json): Json {
  let config = raw;
  if (isRecord(config.tools)) {
    const { tools, ...rest } = config;
    const left: Json = {};
    config = rest;
    for (const [key, value] of Object.entries(tools)) {
      const placement = Object.hasOwn(placements, key) ? placements[key] : undefined;
      if (placement === undefined || placement.taken(config)) left[key] = value;
      else config = placement.place(config, value);
    }
    if (Object.keys(left).length > 0) config = { ...config, tools: left };
  }
  return "webSearch" in config ? { ...config, webSearch: normalizeWebSearch(config.webSearch) } : config;
}
