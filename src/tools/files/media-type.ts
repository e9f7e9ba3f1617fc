/**
 * The one rule for a content type the gateway keeps with a file (what
 * `write_file` is given, what an image model says it drew) and later sends
 * as a `content-type` header: a media type `type/subtype` with optional
 * `; name=value` parameters (values plain or quoted), visible ASCII only, at
 * most 200 characters. Anything else could not be served, or could add
 * headers of its own (a line break), so it is refused where it comes in; a
 * file stored before the rule is served as `application/octet-stream`.
 */

export const maxMediaTypeLength = 200;

const token = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
const quotedString = '"(?:[\\t !#-\\[\\]-~]|\\\\[\\t -~])*"';
const parameter = `[ \\t]*;(?:[ \\t]*${token}=(?:${token}|${quotedString}))?`;
const mediaTypePattern = new RegExp(`^${token}/${token}(?:${parameter})*[ \\t]*$`);

/** Why `value` is not a media type the gateway keeps and serves, or undefined. */
export function mediaTypeProblem(value: string): string | undefined {
  if (value.length > maxMediaTypeLength) return `A content type is at most ${maxMediaTypeLength} characters`;
  if (/[^\t -~]/.test(value)) return "A content type cannot contain line breaks, control characters or non-ASCII characters";
  if (!mediaTypePattern.test(value)) return 'A content type is "type/subtype" with optional "; name=value" parameters (e.g. "text/csv; charset=utf-8")';
  return undefined;
}

/** The content type to serve a stored file with: its own when it passes the rule, else `fallback`. */
export function servableContentType(stored: string | undefined, fallback = "application/octet-stream"): string {
  return stored !== undefined && mediaTypeProblem(stored) === undefined ? stored : fallback;
}
