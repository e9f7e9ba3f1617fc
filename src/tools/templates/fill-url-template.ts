/**
 * Fills `{{param}}` slots in a gateway tool's URL. Every value is
 * percent-encoded into its own slot, so a model-chosen argument can never move
 * the request to another host, add path segments or query parameters, or climb
 * the path with `..`. Placeholders in the scheme or host are a config error.
 */
import { argumentText, lookupArgument, placeholderPattern } from "./template-arguments";

export type FillResult = { ok: true; value: string } | { ok: false; error: string };

const absoluteUrlPattern = /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)([^/?#]*)(.*)$/s;
const dotSegmentPattern = /^(?:\.|%2e){1,2}$/i;

export function fillUrlTemplate(template: string, args: unknown): FillResult {
  const parts = template.match(absoluteUrlPattern);
  if (!parts || !/^https?:\/\/$/i.test(parts[1])) return { ok: false, error: "The tool's URL must be an absolute http(s) URL" };
  const [, scheme, authority, rest] = parts;
  if (scheme.includes("{{") || authority.includes("{{")) {
    return { ok: false, error: "The tool's URL may not have placeholders in its scheme or host" };
  }
  let templateOrigin: string;
  let templateSegmentCount: number;
  try {
    templateOrigin = new URL(template.replace(placeholderPattern, "")).origin;
    templateSegmentCount = segmentCount(new URL(template.replace(placeholderPattern, "x")));
  } catch {
    return { ok: false, error: "The tool's URL is not a valid URL" };
  }

  const pathEnd = rest.search(/[?#]/);
  const path = pathEnd === -1 ? rest : rest.slice(0, pathEnd);
  const tail = pathEnd === -1 ? "" : rest.slice(pathEnd);
  const filledSegments: string[] = [];
  for (const segment of path.split("/")) {
    const filled = fillSlots(segment, args);
    if (!filled.ok) return filled;
    if (filled.value !== segment && dotSegmentPattern.test(filled.value)) {
      return { ok: false, error: 'An argument made a "." or ".." segment in the URL path' };
    }
    filledSegments.push(filled.value);
  }
  const filledTail = fillSlots(tail, args);
  if (!filledTail.ok) return filledTail;

  const built = `${scheme}${authority}${filledSegments.join("/")}${filledTail.value}`;
  let url: URL;
  try {
    url = new URL(built);
  } catch {
    return { ok: false, error: "The filled-in URL is not a valid URL" };
  }
  // Belt and braces: encoding already keeps each value in its slot.
  if (url.origin !== templateOrigin || segmentCount(url) !== templateSegmentCount) {
    return { ok: false, error: "An argument would change the URL's host or path structure" };
  }
  return { ok: true, value: url.href };
}

function fillSlots(text: string, args: unknown): FillResult {
  let error: string | undefined;
  const value = text.replace(placeholderPattern, (_placeholder, name: string) => {
    const argument = lookupArgument(args, name);
    if (!argument.found) {
      error ??= `Missing argument "${name}" for the URL`;
      return "";
    }
    try {
      return encodeURIComponent(argumentText(argument.value));
    } catch {
      error ??= `Argument "${name}" cannot be put in the URL (it is not valid Unicode text)`;
      return "";
    }
  });
  return error === undefined ? { ok: true, value } : { ok: false, error };
}

function segmentCount(url: URL): number {
  return url.pathname.split("/").length;
}
