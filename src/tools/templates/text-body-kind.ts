/**
 * What a gateway tool's text body template is, which decides how values are
 * encoded into it: `json` (each value as JSON), `form` (form-encoded) or
 * `text` (inserted as they are: a format the gateway does not know, so it
 * cannot say what escaping would mean). A configured `Content-Type` decides.
 * Without one, a template whose literal text starts like a JSON object or
 * array is JSON (and must parse once filled: it never falls back to text),
 * one shaped like `name=value&…` is a form, and anything else is text.
 */
import { placeholderPattern } from "./template-arguments";

export type TextBodyKind = "json" | "form" | "text";

const formShape = /^[^=&]*=[^&]*(?:&[^=&]*=[^&]*)*$/;

export function textBodyKind(template: string, headers: Record<string, string> | undefined): TextBodyKind {
  const contentType = configuredContentType(headers);
  if (contentType !== undefined) {
    if (contentType === "application/json" || contentType.endsWith("+json")) return "json";
    if (contentType === "application/x-www-form-urlencoded") return "form";
    return "text";
  }
  // Judged on the literal text, so a template that starts with a placeholder is not taken for an object.
  if (/^\s*[[{]/.test(template.replace(placeholderPattern, ""))) return "json";
  return formShape.test(template) ? "form" : "text";
}

/** The media type of a configured `Content-Type` header, unless the model fills it in. */
function configuredContentType(headers: Record<string, string> | undefined): string | undefined {
  const entry = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === "content-type");
  if (entry === undefined || entry[1].includes("{{") || entry[1].includes("${")) return undefined;
  return entry[1].split(";")[0].trim().toLowerCase();
}
