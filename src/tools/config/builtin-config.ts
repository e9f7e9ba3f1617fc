/**
 * The agent config's fields about built-ins: which groups it has
 * (`builtins`, default: `spaces`, `knowledge` and `calls`), single
 * tools it denies (`deniedTools`), the R2 prefixes its file tools may touch
 * (`files`), the image model `generate_image` draws with (`images`) and
 * the search API `web_search` asks (`webSearch`).
 * Spread into the agent config by `agents/agent-config.ts`.
 */
import { z } from "@hono/zod-openapi";
import { ImageModelConfig } from "../../models/image-model-config";
import { builtinGroupNames, type BuiltinGroup, isBuiltinToolName } from "./builtin-tool-names";
import { checkFolderPath } from "../../security/storage-path";
import { WebSearchConfig } from "./web-search-config";

export const defaultMaxFileBytes = 1_000_000;

const FilePrefix = z
  .string()
  .min(1)
  .max(256)
  .superRefine((prefix, context) => {
    const checked = checkFolderPath(prefix);
    if (!checked.ok) context.addIssue({ code: "custom", message: checked.error });
  });

export const FilesConfig = z
  .object({
    /** Folders under the shared `files/` area the agent may use (`reports/` holds `reports/q3.md`). */
    prefixes: z.array(FilePrefix).min(1).max(16),
    /** Only read, list, grep, info and share. */
    readOnly: z.boolean().optional(),
    /** The largest file the tools read or write (default 1 MB). */
    maxFileBytes: z.number().int().positive().max(10_000_000).optional(),
  })
  .strict()
  .openapi("FilesConfig");

export type FilesConfig = z.infer<typeof FilesConfig>;

export const builtinConfigFields = {
  builtins: z
    .array(z.enum(builtinGroupNames as [BuiltinGroup, ...BuiltinGroup[]]))
    .max(builtinGroupNames.length)
    .optional()
    .openapi({ description: 'Built-in tool groups the agent has; default ["spaces", "knowledge", "calls"]' }),
  deniedTools: z.array(z.string().max(64)).max(128).optional().openapi({ description: "Built-in tools taken away from the groups the agent has" }),
  files: FilesConfig.optional(),
  images: ImageModelConfig.optional(),
  webSearch: WebSearchConfig.optional(),
};

type BuiltinConfig = { builtins?: readonly string[]; deniedTools?: readonly string[]; files?: FilesConfig; webSearch?: WebSearchConfig };

/** What the schema alone cannot say: denied names that are not built-ins, file tools without folders. */
export function builtinConfigProblems(config: BuiltinConfig): { path: (string | number)[]; message: string }[] {
  const problems: { path: (string | number)[]; message: string }[] = [];
  config.deniedTools?.forEach((name, index) => {
    if (!isBuiltinToolName(name)) problems.push({ path: ["deniedTools", index], message: `"${name}" is not a built-in tool` });
  });
  if (config.builtins?.includes("files") && config.files === undefined) {
    problems.push({ path: ["files"], message: 'The "files" group needs files.prefixes: the folders its tools may use' });
  }
  if (config.builtins?.includes("search") && config.webSearch === undefined) {
    problems.push({ path: ["webSearch"], message: 'The "search" group needs webSearch: the search API (provider) and the secret with its key (apiKey)' });
  }
  return problems;
}
