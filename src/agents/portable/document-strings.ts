/**
 * What an exported agent document says about this gateway, found by reading
 * every string in it: ids of this gateway's agents, spaces and entities (they
 * mean nothing elsewhere), the secrets its config names, and whether the value
 * of any secret slipped in literally (it must never leave the gateway).
 */
import { reservedSecretNames } from "../../security/secret-policy";
import { secretReferencePattern } from "../../tools";
import type { DocumentReference } from "./agent-document";

/** Ids the gateway makes (`createId`, or derived from an Idempotency-Key): a prefix and 32 hex digits. */
const gatewayId = /^(agt|spc|ent)_[0-9a-f]{32}$/;
const kindOf = { agt: "agent", spc: "space", ent: "entity" } as const;
/** Shorter values are too likely to occur by chance to be looked for. */
const minSecretLength = 8;
/** The keys a model provider reads when its config names none. */
const defaultKeyNames = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"];

type Visit = (path: (string | number)[], key: string | number | undefined, text: string) => void;

/** Calls `visit` for every string value in `value` (depth-first, without recursion). */
export function eachString(value: unknown, visit: Visit, at: (string | number)[] = []): void {
  const stack: [unknown, (string | number)[]][] = [[value, at]];
  while (stack.length > 0) {
    const [item, path] = stack.pop() as [unknown, (string | number)[]];
    if (typeof item === "string") visit(path, path.at(-1), item);
    else if (Array.isArray(item)) for (let index = item.length - 1; index >= 0; index -= 1) stack.push([item[index], [...path, index]]);
    else if (typeof item === "object" && item !== null) for (const [key, child] of Object.entries(item).reverse()) stack.push([child, [...path, key]]);
  }
}

/** Every string in the config that is an id of this gateway, with its path. */
export function referencesIn(config: unknown, at: (string | number)[]): DocumentReference[] {
  const references: DocumentReference[] = [];
  eachString(
    config,
    (path, _key, text) => {
      const match = gatewayId.exec(text);
      if (match) references.push({ path: path.join("."), kind: kindOf[match[1] as keyof typeof kindOf], id: text });
    },
    at,
  );
  return references;
}

/** The secret names a config may read: `apiKeyEnv` fields, `${env.NAME}` references, the providers' default keys and the gateway's own. */
export function secretNamesOf(config: unknown): Set<string> {
  const names = new Set<string>([...reservedSecretNames, ...defaultKeyNames]);
  eachString(config, (_path, key, text) => {
    if (key === "apiKeyEnv") names.add(text);
    for (const [, name] of text.matchAll(secretReferencePattern)) names.add(name);
  });
  return names;
}

/** The first place a secret's value appears in `document`, if any (names only: the value is never returned). */
export function findSecretValue(document: unknown, names: Set<string>, env: Record<string, unknown>): { name: string; path: string } | undefined {
  const secrets = [...names].flatMap((name) => {
    const value = env[name];
    return typeof value === "string" && value.length >= minSecretLength ? [{ name, value }] : [];
  });
  if (secrets.length === 0) return undefined;
  let found: { name: string; path: string } | undefined;
  eachString(document, (path, _key, text) => {
    if (found) return;
    const secret = secrets.find((candidate) => text.includes(candidate.value));
    if (secret) found = { name: secret.name, path: path.join(".") };
  });
  return found;
}
