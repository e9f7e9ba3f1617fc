/**
 * The Worker's wrangler config for the workers test project, written where no
 * `.dev.vars` or `.env` can be. Wrangler reads secrets from the files next to
 * the config it is given, and the test plugin passes it no way to say "none":
 * pointed at `wrangler.toml`, every test run would load the developer's own
 * `.dev.vars`, real model keys included. Tests use their own bindings only
 * (`vitest.config.ts`), so they get this copy: the same config, its paths made
 * absolute, without `[build]` (the test run builds first itself).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { experimental_readRawConfig } from "wrangler";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Writes the copy of `configPath` into `directory` (default:
 * `.wrangler/test-config/` of this checkout, which holds nothing else; not
 * under node_modules, which other checkouts may share) and returns its path.
 */
export function writeTestWranglerConfig(configPath = join(root, "wrangler.toml"), directory = join(root, ".wrangler", "test-config")) {
  const { rawConfig } = experimental_readRawConfig({ config: configPath });
  const base = dirname(resolve(configPath));
  const absolute = (path) => (isAbsolute(path) ? path : resolve(base, path));
  const { build: _build, ...config } = rawConfig;
  if (config.main) config.main = absolute(config.main);
  if (config.assets?.directory) config.assets = { ...config.assets, directory: absolute(config.assets.directory) };
  if (config.alias) config.alias = Object.fromEntries(Object.entries(config.alias).map(([name, path]) => [name, path.startsWith(".") ? absolute(path) : path]));
  if (config.d1_databases)
    config.d1_databases = config.d1_databases.map((database) => (database.migrations_dir ? { ...database, migrations_dir: absolute(database.migrations_dir) } : database));
  mkdirSync(directory, { recursive: true });
  const written = join(directory, "wrangler.json");
  writeFileSync(written, `${JSON.stringify(config, null, 2)}\n`);
  return written;
}
