/**
 * The alias map: `aliases: {"<alias>": "<tool name>"}`. The model is offered
 * the tool under both names and may call either; a call by the alias runs the
 * same tool through the same pipeline (its approval, queue and cache) and is
 * recorded under the name it was called by. An alias never takes a name a
 * tool has or could have, and names a tool the agent can have; an alias whose
 * tool a cycle lacks (an MCP server that did not list it) is not offered.
 */
import { z } from "@hono/zod-openapi";

export const maxToolAliases = 64;

const callableName = /^[a-zA-Z0-9_-]{1,64}$/;

export const ToolAliases = z
  .record(z.string(), z.string().max(200))
  .optional()
  .openapi({ description: 'Other names the model may call a tool by: {"<alias>": "<tool name>"}; the tool is offered under both' });

export type ToolAliases = z.infer<typeof ToolAliases>;

type Problem = { path: (string | number)[]; message: string };

/**
 * What is wrong with a config's aliases. `canHave` says whether a name is one
 * of the agent's tools (a built-in, a configured tool, the output reader);
 * `providerOf` names the provider whose `{provider}__` prefix a name has.
 */
export function toolAliasProblems(aliases: Record<string, string> | undefined, canHave: (name: string) => boolean, providerOf: (name: string) => string | undefined): Problem[] {
  const entries = Object.entries(aliases ?? {});
  const problems: Problem[] = [];
  if (entries.length > maxToolAliases) problems.push({ path: ["aliases"], message: `At most ${maxToolAliases} aliases` });
  for (const [alias, target] of entries) {
    const path = ["aliases", alias];
    if (!callableName.test(alias)) problems.push({ path, message: `An alias is 1–64 letters, digits, _ or - ("${alias}" is not)` });
    else if (canHave(alias)) problems.push({ path, message: `"${alias}" is already a tool's name` });
    else if (providerOf(alias)) problems.push({ path, message: `"${alias}" has the prefix of provider "${providerOf(alias)}": its tools keep those names` });
    if (!canHave(target) && !providerOf(target))
      problems.push({ path, message: `"${target}" names no tool this agent can have: a built-in, a configured tool, or {provider}__{tool}` });
  }
  return problems;
}
