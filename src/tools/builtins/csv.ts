/**
 * CSV ↔ JSON (RFC 4180): quoted fields with doubled quotes, delimiters and
 * line breaks inside quotes, CRLF or LF rows. Bounded by the caller's input;
 * never throws on odd input, it reports where it stopped making sense.
 */
export type CsvParse = { ok: true; rows: string[][] } | { ok: false; error: string };

/**
 * Cells one conversion may build when rows become objects with every column
 * (`csv_to_json` with a header, `json_to_csv` of objects): that multiplies
 * rows by columns, so a megabyte of commas and line breaks would otherwise
 * ask for hundreds of billions of cells. Parsing itself is linear.
 */
export const maxCsvCells = 2_000_000;

/** The columns `toCsv` writes for object rows (given, or every key in first-seen order), or undefined when the rows are not all objects. */
export function objectColumns(rows: unknown[], columns: string[] | undefined): string[] | undefined {
  if (!rows.every((row) => typeof row === "object" && row !== null && !Array.isArray(row))) return undefined;
  return columns ?? [...new Set(rows.flatMap((row) => Object.keys(row as object)))];
}

export function parseCsv(text: string, delimiter = ","): CsvParse {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let index = 0;
  const input = text.startsWith("\uFEFF") ? text.slice(1) : text;
  while (index < input.length) {
    const character = input[index];
    if (quoted) {
      if (character === '"') {
        if (input[index + 1] === '"') {
          field += '"';
          index += 2;
          continue;
        }
        quoted = false;
        index += 1;
        const next = input[index];
        if (next !== undefined && next !== delimiter && next !== "\n" && next !== "\r") {
          return { ok: false, error: `Row ${rows.length + 1}: text after a closing quote` };
        }
        continue;
      }
      field += character;
      index += 1;
      continue;
    }
    if (character === '"' && field === "") {
      quoted = true;
      index += 1;
    } else if (character === delimiter) {
      row.push(field);
      field = "";
      index += 1;
    } else if (character === "\n" || character === "\r") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      index += character === "\r" && input[index + 1] === "\n" ? 2 : 1;
    } else {
      field += character;
      index += 1;
    }
  }
  if (quoted) return { ok: false, error: `Row ${rows.length + 1}: a quoted field is never closed` };
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return { ok: true, rows };
}

function quote(value: string, delimiter: string): string {
  return /["\r\n]/.test(value) || value.includes(delimiter) || /^\s|\s$/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** Rows (objects, or arrays of values) as CSV; objects take `columns` (default: every key, in first-seen order). */
export function toCsv(rows: unknown[], options: { columns?: string[]; delimiter?: string; header?: boolean } = {}): string {
  const delimiter = options.delimiter ?? ",";
  const columns = objectColumns(rows, options.columns);
  const lines: string[] = [];
  if (columns) {
    if (options.header !== false) lines.push(columns.map((column) => quote(column, delimiter)).join(delimiter));
    for (const row of rows as Record<string, unknown>[]) lines.push(columns.map((column) => quote(cell(row[column]), delimiter)).join(delimiter));
  } else {
    if (options.columns && options.header !== false) lines.push(options.columns.map((column) => quote(column, delimiter)).join(delimiter));
    for (const row of rows) lines.push((Array.isArray(row) ? row : [row]).map((value) => quote(cell(value), delimiter)).join(delimiter));
  }
  return lines.join("\r\n");
}
