/**
 * The direction dependencies point (AGENTS.md): api → agents / spaces → tools
 * → knowledge, db; protocol, streams, security and models sit below them.
 * A lower folder that needs something from a higher one declares an
 * interface instead (tools/tool-context.ts, protocol/space-port.ts).
 * `import type` counts too. Checked in CI by `npm run deps`.
 */
const below = (from, ...higher) => ({
  name: `${from}-not-above`,
  comment: `src/${from} must not depend on ${higher.join(", ")}`,
  severity: "error",
  from: { path: `^src/${from}/` },
  to: { path: `^src/(${higher.join("|")})/` },
});

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No module imports itself through others at run time (a cycle of type-only imports erases to nothing)",
      severity: "error",
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
    below("agents", "api"),
    below("spaces", "api", "agents"),
    below("tools", "api", "agents", "spaces"),
    below("knowledge", "api", "agents", "spaces", "tools"),
    below("models", "api", "agents", "spaces", "tools", "knowledge"),
    below("db", "api", "agents", "spaces", "tools", "knowledge", "models"),
    below("protocol", "api", "agents", "spaces", "tools", "knowledge", "models", "db", "streams"),
    below("streams", "api", "agents", "spaces", "tools", "knowledge", "models", "db"),
    below("security", "api", "agents", "spaces", "tools", "knowledge", "models", "db", "streams"),
    below("auth", "api", "agents", "spaces", "tools", "knowledge", "models"),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // TypeScript 7 has no compiler API yet: swc parses the sources (type-only imports included).
    parser: "swc",
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: [".ts", ".mjs", ".js"] },
  },
};
