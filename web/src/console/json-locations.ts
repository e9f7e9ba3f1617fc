/**
 * Where each value of a JSON text sits: the line of every path
 * (`tools.0.name`, joined with dots as the gateway's validation errors name
 * them), so the console's editor can show a problem next to the line it is
 * about. Also the one syntax check of the editor: a text that is not JSON
 * fails here with its line and column, before anything is sent.
 */

export type JsonLocations = { ok: true; value: unknown; lineOf(path: string): { line: number; exact: boolean } } | { ok: false; line: number; column: number; message: string };

const maxDepth = 256;

class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** Reads `text` as JSON, recording the offset of each path: a member's key, an element's value. */
export function locateJson(text: string): JsonLocations {
  const offsets = new Map<string, number>();
  let index = 0;

  const skipWhitespace = () => {
    while (index < text.length && (text[index] === " " || text[index] === "\n" || text[index] === "\r" || text[index] === "\t")) index += 1;
  };
  const describe = (at: number) => (at >= text.length ? "the end of the text" : `"${text[at]}"`);

  const readString = (): string => {
    const start = index;
    index += 1;
    while (index < text.length) {
      const character = text[index];
      if (character === '"') {
        index += 1;
        // Checked above to be one string literal: JSON.parse decodes its escapes.
        const decoded: unknown = JSON.parse(text.slice(start, index));
        return typeof decoded === "string" ? decoded : "";
      }
      if (character === "\\") {
        const escaped = text[index + 1];
        if (escaped === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(index + 2, index + 6))) throw new JsonSyntaxError("A \\u escape needs four hex digits", index);
          index += 6;
        } else if (escaped !== undefined && '"\\/bfnrt'.includes(escaped)) index += 2;
        else throw new JsonSyntaxError(`Unknown escape \\${escaped ?? ""} in a string`, index);
        continue;
      }
      if (character < " ") throw new JsonSyntaxError("A line break or control character inside a string (write \\n)", index);
      index += 1;
    }
    throw new JsonSyntaxError("A string that never ends (a missing closing quote)", start);
  };

  const readValue = (path: string, depth: number): unknown => {
    if (depth > maxDepth) throw new JsonSyntaxError(`Nested deeper than ${maxDepth} levels`, index);
    skipWhitespace();
    if (!offsets.has(path)) offsets.set(path, index);
    const character = text[index];
    if (character === "{") {
      index += 1;
      const object: Record<string, unknown> = {};
      skipWhitespace();
      if (text[index] === "}") {
        index += 1;
        return object;
      }
      for (;;) {
        skipWhitespace();
        if (text[index] !== '"') throw new JsonSyntaxError(`Expected a member name in double quotes, found ${describe(index)}`, index);
        const keyAt = index;
        const key = readString();
        const memberPath = path === "" ? key : `${path}.${key}`;
        offsets.set(memberPath, keyAt);
        skipWhitespace();
        if (text[index] !== ":") throw new JsonSyntaxError(`Expected ":" after "${key}", found ${describe(index)}`, index);
        index += 1;
        Object.defineProperty(object, key, { value: readValue(memberPath, depth + 1), enumerable: true, writable: true, configurable: true });
        skipWhitespace();
        if (text[index] === ",") {
          index += 1;
          continue;
        }
        if (text[index] === "}") {
          index += 1;
          return object;
        }
        throw new JsonSyntaxError(`Expected "," or "}" after the value of "${key}", found ${describe(index)}`, index);
      }
    }
    if (character === "[") {
      index += 1;
      const array: unknown[] = [];
      skipWhitespace();
      if (text[index] === "]") {
        index += 1;
        return array;
      }
      for (;;) {
        array.push(readValue(path === "" ? String(array.length) : `${path}.${array.length}`, depth + 1));
        skipWhitespace();
        if (text[index] === ",") {
          index += 1;
          continue;
        }
        if (text[index] === "]") {
          index += 1;
          return array;
        }
        throw new JsonSyntaxError(`Expected "," or "]" in a list, found ${describe(index)}`, index);
      }
    }
    if (character === '"') return readString();
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(index, index + 400));
    if (!literal) throw new JsonSyntaxError(`Expected a value, found ${describe(index)}`, index);
    index += literal[0].length;
    return JSON.parse(literal[0]);
  };

  const lineStarts = [0];
  for (let at = 0; at < text.length; at += 1) if (text[at] === "\n") lineStarts.push(at + 1);
  const lineAt = (offset: number) => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (lineStarts[middle] <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - lineStarts[low] + 1 };
  };

  try {
    const value = readValue("", 0);
    skipWhitespace();
    if (index < text.length) throw new JsonSyntaxError(`Unexpected ${describe(index)} after the end of the JSON value`, index);
    return {
      ok: true,
      value,
      lineOf(path: string) {
        // A problem about something missing (a required member) names a path that is not in the text: show it at the nearest one that is.
        const segments = path === "" ? [] : path.split(".");
        for (let length = segments.length; length >= 0; length -= 1) {
          const offset = offsets.get(segments.slice(0, length).join("."));
          if (offset !== undefined) return { line: lineAt(offset).line, exact: length === segments.length };
        }
        return { line: 1, exact: false };
      },
    };
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    const { line, column } = lineAt(Math.min(error.offset, text.length));
    return { ok: false, line, column, message: error.message };
  }
}
