/**
 * `webSearch` in the agent config: which search API the `web_search`
 * built-in (the `search` group) asks, and with which key. The key is named,
 * never given: `apiKey` is a `${env.NAME}` reference to a Worker secret, read
 * by the secret policy when the tool runs (and checked to be set at save).
 * Only Tavily has an adapter (`tools/http/web-search-provider.ts`); the
 * catalogue's other names are refused at save rather than failing at a call.
 */
import { z } from "@hono/zod-openapi";
import { secretNameProblem } from "../../security/secret-policy";
import { OutboundUrl } from "../../security/url-policy";

export const webSearchProviders = ["tavily"] as const;

/** `${env.NAME}` and nothing else: a whole reference, so a literal key cannot hide around it. */
const wholeSecretReference = /^\$\{env\.([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** The secret `apiKey` names (undefined for a value that is not a whole `${env.NAME}`). */
export function webSearchKeyName(apiKey: string): string | undefined {
  return wholeSecretReference.exec(apiKey)?.[1];
}

const ApiKeyReference = z
  .string()
  .max(200)
  .superRefine((value, context) => {
    const name = webSearchKeyName(value);
    if (name === undefined) {
      context.addIssue({ code: "custom", message: 'apiKey names a Worker secret as "${env.NAME}" (a key itself is never stored in a config)' });
      return;
    }
    const problem = secretNameProblem(name);
    if (problem !== undefined) context.addIssue({ code: "custom", message: problem });
  });

export const WebSearchConfig = z
  .object({
    provider: z.enum(webSearchProviders).openapi({ description: "The search API: tavily" }),
    apiKey: ApiKeyReference.openapi({ description: 'The Worker secret holding the key, as "${env.NAME}"' }),
    /** Results asked for when the model gives no `limit` (default 5), and the most it may ask for. */
    maxResults: z.number().int().min(1).max(20).optional(),
    /** Tavily's `search_depth` (default basic). */
    searchDepth: z.enum(["basic", "advanced"]).optional(),
    /** Another endpoint speaking the provider's API (default the provider's own). */
    baseURL: OutboundUrl.optional(),
  })
  .strict()
  .openapi("WebSearchConfig");

export type WebSearchConfig = z.infer<typeof WebSearchConfig>;
