/**
 * The one reader of `.dev.vars` (dotenv syntax), shared by `npm run dev`
 * (scripts/dev.mjs), the demo seeding (scripts/seed-demo.mjs) and the CLI
 * (cli/src/local-setup.ts, bundled from here). Plain JavaScript so that
 * `npm run dev` runs it on plain Node 20; typed by parse-dotenv.d.mts.
 *
 * `NAME=value` a line; an `export ` prefix is allowed; white space around
 * the name and the value is dropped; a value wholly in matching single or
 * double quotes loses them (nothing inside is unescaped); lines that are not
 * assignments (blank, `# comments`) are skipped; a later line wins.
 */
export function parseDotenv(text) {
  const values = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match) continue;
    let value = match[2];
    if (/^(["']).*\1$/.test(value)) value = value.slice(1, -1);
    values[match[1]] = value;
  }
  return values;
}
