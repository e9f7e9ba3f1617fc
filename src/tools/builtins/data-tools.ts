/**
 * The `data` group: JMESPath queries over JSON, JSON parsed and written,
 * base64, hashes (and HMACs), UUIDs, and CSV ↔ JSON. Pure computation: no
 * storage, nothing to make idempotent.
 */
import { z } from "@hono/zod-openapi";
import { tool, zodSchema } from "ai";
import { anyBase64ToBytes, bytesToBase64, bytesToBase64Url } from "../../base64";
import { parseJsonSafely } from "../../json";
import { importHmacKey } from "../../security/hmac-key";
import type { SettingsAccess } from "../engine/tool-context";
import { failed, succeeded } from "../engine/tool-outcome";
import { maxCsvCells, objectColumns, parseCsv, toCsv } from "./csv";
import { runJsonQuery } from "./json-query";

const maxText = 1_000_000;
const Delimiter = z.string().length(1).optional().describe('One character (default ",")');
const hashAlgorithms = ["SHA-256", "SHA-1", "SHA-384", "SHA-512", "MD5"] as const;

const schemas = {
  jsonQuery: zodSchema(
    z.object({
      expression: z.string().min(1).max(2_000).describe("A JMESPath expression, e.g. people[?age > `30`].name"),
      data: z.unknown().optional().describe("The JSON value to query"),
      json: z.string().max(maxText).optional().describe("Or: the JSON as text"),
    }),
  ),
  jsonParse: zodSchema(z.object({ text: z.string().max(maxText).describe("JSON text") })),
  jsonStringify: zodSchema(
    z.object({ data: z.unknown().describe("The value to write as JSON"), pretty: z.boolean().optional().describe("Indent with two spaces (default false)") }),
  ),
  base64Encode: zodSchema(z.object({ text: z.string().max(maxText), urlSafe: z.boolean().optional().describe("base64url without padding") })),
  base64Decode: zodSchema(z.object({ encoded: z.string().max(maxText * 2) })),
  hash: zodSchema(
    z.object({
      text: z.string().max(maxText),
      algorithm: z.enum(hashAlgorithms).optional().describe("Default SHA-256"),
      encoding: z.enum(["hex", "base64"]).optional(),
      hmacKey: z.string().max(4_096).optional().describe("Give a key to compute an HMAC instead (not with MD5)"),
    }),
  ),
  uuid: zodSchema(
    z.object({
      count: z.number().int().min(1).max(100).optional(),
      version: z
        .union([z.literal(4), z.literal(7)])
        .optional()
        .describe("4 random (default) or 7 time-ordered"),
    }),
  ),
  csvToJson: zodSchema(z.object({ csv: z.string().max(maxText), delimiter: Delimiter, header: z.boolean().optional().describe("The first row names the columns (default true)") })),
  jsonToCsv: zodSchema(
    z.object({
      rows: z.array(z.unknown()).max(100_000).describe("Objects (one per row) or arrays of values"),
      columns: z.array(z.string().max(500)).max(1_000).optional().describe("Column order (default: every key, first seen first)"),
      delimiter: Delimiter,
      header: z.boolean().optional(),
    }),
  ),
};

const encoder = new TextEncoder();

const tooManyCells = (rows: number, columns: number) => `${rows} rows × ${columns} columns is more than ${maxCsvCells} cells; convert fewer rows or columns at a time`;

const hex = (bytes: Uint8Array) => [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");

function uuidV7(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const now = Date.now();
  for (let index = 0; index < 6; index += 1) bytes[index] = Math.floor(now / 2 ** (8 * (5 - index))) & 0xff;
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const text = hex(bytes);
  return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`;
}

export function createDataTools(context: SettingsAccess) {
  const maxResultBytes = context.config.limits.toolResponseMaxBytes;
  return {
    json_query: tool({
      description:
        "Query or reshape JSON with a JMESPath expression (community edition: filters, projections, functions such as sort_by, group_by, join, let). Give the value as data, or as JSON text in json.",
      inputSchema: schemas.jsonQuery,
      execute: async ({ expression, data, json }) => {
        let value = data;
        if (json !== undefined) {
          const parsed = parseJsonSafely(json);
          if (!parsed.ok) return failed(parsed.message);
          value = parsed.value;
        }
        if (value === undefined) return failed("Give the JSON to query as data or json");
        const result = runJsonQuery(value, expression, maxResultBytes);
        return result.ok ? succeeded({ result: result.value }) : failed(result.error);
      },
    }),

    json_parse: tool({
      description: "Parse JSON text into a value (data). Says where the text is not JSON.",
      inputSchema: schemas.jsonParse,
      execute: async ({ text }) => {
        const parsed = parseJsonSafely(text);
        return parsed.ok ? succeeded({ data: parsed.value }) : failed(parsed.message);
      },
    }),

    json_stringify: tool({
      description: "Write a value as JSON text (pretty: indented).",
      inputSchema: schemas.jsonStringify,
      execute: async ({ data, pretty }) => {
        const text = JSON.stringify(data ?? null, null, pretty ? 2 : undefined);
        if (encoder.encode(text).length > maxResultBytes) return failed(`The JSON is larger than ${maxResultBytes} bytes, the most a tool may answer`);
        return succeeded({ text });
      },
    }),

    base64_encode: tool({
      description: "Encode UTF-8 text as base64 (or base64url).",
      inputSchema: schemas.base64Encode,
      execute: async ({ text, urlSafe }) => {
        const bytes = encoder.encode(text);
        return succeeded({ encoded: urlSafe ? bytesToBase64Url(bytes) : bytesToBase64(bytes) });
      },
    }),

    base64_decode: tool({
      description: "Decode base64 or base64url to UTF-8 text.",
      inputSchema: schemas.base64Decode,
      execute: async ({ encoded }) => {
        const bytes = anyBase64ToBytes(encoded);
        if (!bytes) return failed("Not valid base64");
        try {
          const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
          // `decoded` is the catalogue's name for it; `text` is kept for configs written against it.
          return succeeded({ text, decoded: text, bytes: bytes.length });
        } catch {
          return failed(`The decoded ${bytes.length} bytes are not UTF-8 text (hex: ${hex(bytes.subarray(0, 64))}${bytes.length > 64 ? "…" : ""})`);
        }
      },
    }),

    hash: tool({
      description: "Hash UTF-8 text (SHA-256 by default; SHA-1, SHA-384, SHA-512, MD5), or an HMAC with hmacKey.",
      inputSchema: schemas.hash,
      execute: async ({ text, algorithm = "SHA-256", encoding = "hex", hmacKey }) => {
        let digest: ArrayBuffer;
        if (hmacKey !== undefined) {
          if (algorithm === "MD5") return failed("HMAC is not offered with MD5; use a SHA algorithm");
          digest = await crypto.subtle.sign("HMAC", await importHmacKey(hmacKey, ["sign"], algorithm), encoder.encode(text));
        } else digest = await crypto.subtle.digest(algorithm, encoder.encode(text));
        const bytes = new Uint8Array(digest);
        return succeeded({ hash: encoding === "hex" ? hex(bytes) : bytesToBase64(bytes), algorithm, encoding, ...(hmacKey !== undefined && { hmac: true }) });
      },
    }),

    uuid: tool({
      description: "New UUIDs: version 4 (random) or 7 (time-ordered).",
      inputSchema: schemas.uuid,
      execute: async ({ count = 1, version = 4 }) => succeeded({ uuids: Array.from({ length: count }, () => (version === 7 ? uuidV7() : crypto.randomUUID())) }),
    }),

    csv_to_json: tool({
      description: "Parse CSV (RFC 4180: quotes, embedded commas and line breaks). With a header row (default) each row becomes an object; without, an array.",
      inputSchema: schemas.csvToJson,
      execute: async ({ csv, delimiter, header = true }) => {
        const parsed = parseCsv(csv, delimiter);
        if (!parsed.ok) return failed(parsed.error);
        if (!header) return succeeded({ rows: parsed.rows, rowCount: parsed.rows.length });
        const [columns = [], ...rows] = parsed.rows;
        if (rows.length * columns.length > maxCsvCells) return failed(tooManyCells(rows.length, columns.length));
        const objects = rows.map((row) => Object.fromEntries(columns.map((column, index) => [column, row[index] ?? ""])));
        return succeeded({ columns, rows: objects, rowCount: objects.length });
      },
    }),

    json_to_csv: tool({
      description: "Write rows (objects or arrays) as CSV with a header row; nested values are written as JSON.",
      inputSchema: schemas.jsonToCsv,
      execute: async ({ rows, columns, delimiter, header }) => {
        const written = objectColumns(rows, columns);
        if (written && rows.length * written.length > maxCsvCells) return failed(tooManyCells(rows.length, written.length));
        return succeeded({ csv: toCsv(rows, { columns, delimiter, header }), rowCount: rows.length });
      },
    }),
  };
}
