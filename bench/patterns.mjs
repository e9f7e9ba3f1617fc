/**
 * Worst-case inputs, in this process (no server): the gateway's own modules
 * (`src/security/safe-pattern`, the tool-schema validator, `json_query`)
 * bundled with esbuild and run in Node, whose V8 is the one `wrangler dev`
 * and Workers use, give or take a version.
 *
 * Evil patterns. Each pattern of a corpus that backtracks exponentially or
 * polynomially on the JavaScript engine is grepped, as `read_output` and
 * `grep_files` do, over inputs at the tools' limits (5 MB of text: lines of
 * `a`s ending in `!`, one 5 MB line, log-like lines), each call with one
 * call's budget. Per call: the worst and the median time against the 50 ms
 * target, and whether the budget stopped it.
 *
 * Schemas and queries. A tool argument checked against an evil `pattern`, a
 * `format: url` (exponential in the library), `patternProperties`, a
 * fan-out of `$ref`s and `uniqueItems` on a long array; a cubic JMESPath
 * expression over 1,000 items. Per call: time, and whether it was refused.
 *
 * Benign cost. Ordinary patterns over 5 MB of log-like text, the engine
 * against the built-in RegExp on the same lines in the same run: the ratio is
 * what the guarantee costs.
 */
import { build } from "esbuild";
import { median, ms, percentile, printTable } from "./support.mjs";

export const name = "patterns";
export const description = "evil patterns, schemas and queries through the linear-time engine and the bounded validators; the engine's cost next to RegExp on benign patterns";

const targetMs = 50;

const evilPatterns = [
  "(a+)+$",
  "(a|a)*$",
  "(a|aa)*$",
  "^(a?){30}a{30}$",
  "(\\w+\\s?)*$",
  "(.*a){20}!x",
  "(x+x+)+y",
  "(\\d|\\d\\d)+$",
  "^(([a-z])+.)+[A-Z]([a-z])+$",
  "[a-z]{0,1000}[a-z]{0,1000}!x",
  "(?:a|b|ab|ba)*c",
  "([\\w.-]+)+@x",
];

const benignPatterns = ["error", "ERROR \\d+", '^\\s*"word": "needle"', "[A-Z][a-z]+ \\d{4}", "timeout|refused|reset", "\\b(?:GET|POST) /api/\\w+"];

async function loadModules(root) {
  const bundled = await build({
    stdin: {
      contents: [
        'export * from "./src/security/safe-pattern/safe-pattern";',
        'export { validateToolArguments } from "./src/tools/engine/validate-tool-arguments";',
        'export { runJsonQuery } from "./src/tools/builtins/json-query";',
      ].join("\n"),
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    logLevel: "error",
  });
  const source = bundled.outputFiles[0].text;
  return import(`data:text/javascript;base64,${Buffer.from(source).toString("base64")}`);
}

function timed(task) {
  const started = performance.now();
  const value = task();
  return { value, ms: performance.now() - started };
}

export async function run(context) {
  const engine = await loadModules(context.root);
  const { compileSafePattern, PatternBudget, searchBudgetUnits, validateToolArguments, runJsonQuery } = engine;

  const fiveMegabytes = 5_000_000;
  const inputs = {
    "2,000-char a-lines": Array.from({ length: Math.floor(fiveMegabytes / 2_001) }, () => `${"a".repeat(1_999)}!`).join("\n"),
    "one 5 MB line": `${"a".repeat(fiveMegabytes - 1)}!`,
    "log lines": logText(fiveMegabytes),
  };

  // Evil patterns, one grep call each, as the tools make it (compile, one matcher, one budget, line by line).
  const rows = [];
  const all = [];
  for (const pattern of evilPatterns) {
    const times = [];
    let stopped = 0;
    for (const text of Object.values(inputs)) {
      const { value, ms: elapsed } = timed(() => {
        const compiled = compileSafePattern(pattern, {});
        if (!compiled.ok) return { refused: true };
        let matches = 0;
        const result = compiled.pattern.matcher().searchLines(text, new PatternBudget(searchBudgetUnits), () => ++matches > 0);
        return { stopped: result.stopped === "over-budget", matches };
      });
      times.push(elapsed);
      all.push(elapsed);
      if (value.stopped) stopped += 1;
    }
    rows.push([pattern, ms(Math.max(...times)), ms(median(times)), `${stopped}/${times.length}`]);
  }
  console.log(`\nEvil patterns, one grep call over 5 MB (${Object.keys(inputs).join(", ")}), budget ${searchBudgetUnits} units a call:`);
  printTable(["pattern", "worst ms", "median ms", "stopped by the budget"], rows);
  const worst = Math.max(...all);
  context.target({
    measure: "evil pattern grep over 5 MB, worst call",
    now: `${ms(worst)} ms (median ${ms(median(all))}, p95 ${ms(percentile(all, 0.95))})`,
    target: `≤ ${targetMs} ms`,
    met: worst <= targetMs,
    why: worst > targetMs ? "see the table: the budget bounds units, and units are calibrated for the reference machine" : undefined,
  });

  // Tool arguments against evil schemas, and an evil query.
  const longArray = Array.from({ length: 20_000 }, (_, index) => index);
  const fanOut = { d30: { type: "string" } };
  for (let level = 0; level < 30; level += 1) fanOut[`d${level}`] = { anyOf: [{ $ref: `#/$defs/d${level + 1}` }, { $ref: `#/$defs/d${level + 1}` }] };
  const schemaCases = [
    ["pattern ^(a+)+$, 100,000 a's and !", { type: "object", properties: { q: { type: "string", pattern: "^(a+)+$" } } }, { q: `${"a".repeat(100_000)}!` }],
    ["format url, http:// and 100,000 a's and !", { type: "object", properties: { q: { type: "string", format: "url" } } }, { q: `http://${"a".repeat(100_000)}!` }],
    [
      "patternProperties (a|aa)*$, 1,000 long names",
      { type: "object", patternProperties: { "^(a|aa)+$": { type: "integer" } } },
      Object.fromEntries(Array.from({ length: 1_000 }, (_, index) => [`${"a".repeat(200 + index)}!`, index])),
    ],
    ["uniqueItems over 20,000 items", { type: "object", properties: { list: { type: "array", uniqueItems: true } } }, { list: longArray }],
    ["recursive anyOf, 60 levels deep", { type: "object", properties: { next: { anyOf: [{ $ref: "#" }, { $ref: "#" }] } } }, nested(60)],
    ["fan-out of $refs (2^30), at compile", { type: "object", properties: { q: { $ref: "#/$defs/d0" } }, $defs: fanOut }, { q: "x" }],
  ];
  const schemaRows = [];
  const schemaTimes = [];
  for (const [label, schema, args] of schemaCases) {
    const { value, ms: elapsed } = timed(() => validateToolArguments(structuredClone(schema), args));
    schemaTimes.push(elapsed);
    schemaRows.push([label, ms(elapsed), value.ok ? "valid" : value.problems[0].slice(0, 70)]);
  }
  const query = timed(() =>
    runJsonQuery(
      Array.from({ length: 1_000 }, (_, index) => index),
      "map(&map(&map(&@, $), $), @)",
      1_000_000,
    ),
  );
  schemaTimes.push(query.ms);
  schemaRows.push(["json_query cubic map over 1,000 items", ms(query.ms), query.value.ok ? "answered" : query.value.error.slice(0, 70)]);
  console.log("\nSchemas and queries, one call each (compile included):");
  printTable(["case", "ms", "answer"], schemaRows);
  const schemaWorst = Math.max(...schemaTimes);
  context.target({
    measure: "evil schema or query, worst call",
    now: `${ms(schemaWorst)} ms`,
    target: `≤ ${targetMs} ms`,
    met: schemaWorst <= targetMs,
    why: schemaWorst > targetMs ? "see the table above" : undefined,
  });

  // Benign patterns: the engine against RegExp over the same 5 MB of log lines.
  const text = inputs["log lines"];
  const lines = text.split("\n");
  const benignRows = [];
  const ratios = [];
  // Warm both engines up on a little of the text first, so neither pays its compiler in the figures.
  const sample = lines.slice(0, 2_000);
  for (const pattern of benignPatterns) {
    const compiled = compileSafePattern(pattern, {});
    if (compiled.ok) compiled.pattern.matcher().searchLines(sample.join("\n"), new PatternBudget(1e12), () => true);
    for (const line of sample) new RegExp(pattern, "u").test(line);
  }
  for (const pattern of benignPatterns) {
    const compiled = compileSafePattern(pattern, {});
    if (!compiled.ok) throw new Error(`${pattern}: ${compiled.message}`);
    let ours = 0;
    const engineRun = timed(() => compiled.pattern.matcher().searchLines(text, new PatternBudget(1e12), () => ++ours > 0));
    const regexp = new RegExp(pattern, "u");
    let theirs = 0;
    const builtIn = timed(() => {
      for (const line of lines) if (regexp.test(line)) theirs += 1;
    });
    if (ours !== theirs) throw new Error(`${pattern}: the engine found ${ours} lines, RegExp ${theirs}`);
    ratios.push(engineRun.ms / builtIn.ms);
    benignRows.push([pattern, ours, ms(engineRun.ms), ms(builtIn.ms), `${(engineRun.ms / builtIn.ms).toFixed(1)}x`]);
  }
  console.log("\nBenign patterns over 5 MB of log lines, the engine and RegExp in the same run:");
  printTable(["pattern", "lines", "engine ms", "RegExp ms", "ratio"], benignRows);
  context.target({ measure: "benign grep, engine / RegExp (median ratio)", now: `${median(ratios).toFixed(1)}x`, target: "reported", met: undefined });
}

function logText(bytes) {
  const words = ["GET /api/users", "POST /api/orders", "ERROR 503 upstream timeout", "info Cache hit", "warn connection reset", '  "word": "needle"', "Started June 2024"];
  const parts = [];
  let size = 0;
  for (let index = 0; size < bytes; index += 1) {
    const word = words[index % words.length];
    const line = word.startsWith(" ") ? word : `${String(index).padStart(8, "0")} ${word} ${index % 13 === 0 ? "refused" : "ok"}`;
    parts.push(line);
    size += line.length + 1;
  }
  return parts.join("\n");
}

function nested(depth) {
  let value = {};
  for (let level = 0; level < depth; level += 1) value = { next: value };
  return value;
}
