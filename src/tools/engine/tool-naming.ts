/**
 * One naming rule for every provider's tools: `{provider}__{tool}`, made
 * safe for model tool names (`^[a-zA-Z0-9_-]{1,64}$`: any other character
 * becomes `_`). A name longer than 64 characters keeps its first 57 and ends
 * in `_` and 6 characters of a hash of the whole name, so two long names
 * that differ only at the end stay different. Two tools that still end up
 * with the same name are a collision: refused when the agent is saved if
 * both are known then, else at discovery, in both cases with an error that
 * names both.
 */
export const modelToolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;
const maxLength = 64;

/** FNV-1a, 32 bits, in base 36: short and stable (not for security). */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36).padStart(6, "0").slice(-6);
}

/** A name the model accepts, from any text. */
export function sanitizeToolName(raw: string): string {
  const clean = raw.replace(/[^a-zA-Z0-9_-]/g, "_") || "_";
  return clean.length <= maxLength ? clean : `${clean.slice(0, maxLength - 7)}_${shortHash(raw)}`;
}

/** `{provider}__{tool}`, made safe for model tool names. */
export function providerToolName(provider: string, tool: string): string {
  return sanitizeToolName(`${provider}__${tool}`);
}

/** Where a tool comes from, for messages: `provider "x" tool "y"`. */
export type ToolOrigin = { provider: string; tool: string };

export const describeOrigin = (origin: ToolOrigin) =>
  origin.provider === "builtin" || origin.provider === "tools"
    ? `${origin.provider === "builtin" ? "the built-in tool" : "the configured tool"} "${origin.tool}"`
    : `tool "${origin.tool}" of provider "${origin.provider}"`;

/** Claims names in priority order; a second claim on a name is refused with both origins. */
export class ToolNames {
  readonly #owners = new Map<string, ToolOrigin>();

  claim(name: string, origin: ToolOrigin): { ok: true } | { ok: false; holder: ToolOrigin; message: string } {
    const holder = this.#owners.get(name);
    if (holder) {
      return { ok: false, holder, message: `The name "${name}" of ${describeOrigin(origin)} is already taken by ${describeOrigin(holder)}` };
    }
    this.#owners.set(name, origin);
    return { ok: true };
  }

  has(name: string): boolean {
    return this.#owners.has(name);
  }
}
