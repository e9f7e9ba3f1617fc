/**
 * The small part of Markdown that agents write (and the gateway's own
 * `final_report` posts), drawn as elements so nobody reads raw asterisks and
 * backticks: paragraphs, `#` headings (as bold lines: a message holds no
 * page headings), `-`/`*`/`1.` lists, `>` quotes, fenced code blocks, and
 * inline code, bold, italics and links (http, https and mailto only). Built
 * with DOM nodes, never HTML strings, so nothing in a message can become
 * markup; every search moves forward, so a long or hostile message takes
 * linear time.
 */
import { h } from "./dom";

type Block =
  | { kind: "paragraph"; lines: string[] }
  | { kind: "heading"; text: string }
  | { kind: "quote"; lines: string[] }
  | { kind: "code"; language: string; lines: string[] }
  | { kind: "list"; ordered: boolean; items: string[] };

const fence = /^\s{0,3}(```|~~~)\s*([\w+-]*)/;
const bullet = /^\s{0,3}[-*+]\s+(.*)$/;
const numbered = /^\s{0,3}\d{1,9}[.)]\s+(.*)$/;
const heading = /^\s{0,3}#{1,6}\s+(.*)$/;
const quote = /^\s{0,3}>\s?(.*)$/;

/** The elements for a message's text. */
export function renderMarkdown(text: string): Node[] {
  return blocksOf(text).map(drawBlock);
}

function blocksOf(text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let index = 0;
  while (index < lines.length) {
    const line = lines[index];
    const opened = fence.exec(line);
    if (opened) {
      const code: string[] = [];
      index += 1;
      while (index < lines.length && !lines[index].trimStart().startsWith(opened[1])) code.push(lines[index++]);
      index += 1; // the closing fence (or the end of the text)
      blocks.push({ kind: "code", language: opened[2], lines: code });
      continue;
    }
    if (line.trim() === "") {
      index += 1;
      continue;
    }
    const title = heading.exec(line);
    if (title) {
      blocks.push({ kind: "heading", text: withoutClosingHashes(title[1]) });
      index += 1;
      continue;
    }
    const item = bullet.exec(line) ?? numbered.exec(line);
    if (item) {
      const ordered = !bullet.test(line);
      const items: string[] = [];
      while (index < lines.length) {
        const next = (ordered ? numbered : bullet).exec(lines[index]);
        if (next) items.push(next[1]);
        else if (items.length > 0 && /^\s{2,}\S/.test(lines[index])) items[items.length - 1] += `\n${lines[index].trim()}`;
        else break;
        index += 1;
      }
      blocks.push({ kind: "list", ordered, items });
      continue;
    }
    if (quote.test(line)) {
      const quoted: string[] = [];
      for (let next = quote.exec(line); next; next = index < lines.length ? quote.exec(lines[index]) : null) {
        quoted.push(next[1]);
        index += 1;
      }
      blocks.push({ kind: "quote", lines: quoted });
      continue;
    }
    const paragraph: string[] = [];
    while (index < lines.length && lines[index].trim() !== "" && !startsBlock(lines[index])) paragraph.push(lines[index++]);
    blocks.push({ kind: "paragraph", lines: paragraph });
  }
  return blocks;
}

/** `## Title ##` → `Title` (by hand: a pattern with a lazy group before trailing `#`s would backtrack on long lines). */
function withoutClosingHashes(text: string): string {
  let end = text.length;
  while (end > 0 && /\s/.test(text[end - 1])) end -= 1;
  let hashes = end;
  while (hashes > 0 && text[hashes - 1] === "#") hashes -= 1;
  if (hashes < end && (hashes === 0 || /\s/.test(text[hashes - 1]))) end = hashes;
  return text.slice(0, end).trimEnd();
}

function startsBlock(line: string): boolean {
  return fence.test(line) || heading.test(line) || bullet.test(line) || numbered.test(line) || quote.test(line);
}

function drawBlock(block: Block): HTMLElement {
  switch (block.kind) {
    case "paragraph":
      return h("p", {}, renderInline(block.lines.join("\n")));
    case "heading":
      return h("p", { class: "md-heading" }, h("strong", {}, renderInline(block.text)));
    case "quote":
      return h("blockquote", {}, renderInline(block.lines.join("\n")));
    case "code":
      return h("pre", { class: "md-code" }, h("code", block.language ? { "data-language": block.language } : {}, block.lines.join("\n")));
    case "list":
      return h(
        block.ordered ? "ol" : "ul",
        {},
        block.items.map((item) => h("li", {}, renderInline(item))),
      );
  }
}

/** Inline code, `**bold**`, `*italic*` / `_italic_` and `[links](https://…)`; anything else stays as typed. */
export function renderInline(text: string, depth = 0): Node[] {
  const nodes: Node[] = [];
  const next = new NextIndex(text);
  let plain = "";
  const flush = () => {
    if (plain) nodes.push(document.createTextNode(plain));
    plain = "";
  };
  let at = 0;
  while (at < text.length) {
    const char = text[at];
    if (char === "`") {
      const close = next.of("`", at + 1);
      if (close > at + 1) {
        flush();
        nodes.push(h("code", {}, text.slice(at + 1, close)));
        at = close + 1;
        continue;
      }
    } else if (depth < 3 && (char === "*" || char === "_") && text[at + 1] === char) {
      const marker = char + char;
      const close = next.of(marker, at + 2);
      if (close > at + 2 && !/\s/.test(text[at + 2]) && !/\s/.test(text[close - 1])) {
        flush();
        nodes.push(h("strong", {}, renderInline(text.slice(at + 2, close), depth + 1)));
        at = close + 2;
        continue;
      }
    } else if (depth < 3 && (char === "*" || char === "_") && opensEmphasis(text, at)) {
      const close = next.of(char, at + 1);
      if (close > at + 1 && !/\s/.test(text[close - 1]) && (char === "*" || !/[\p{L}\p{N}]/u.test(text[close + 1] ?? ""))) {
        flush();
        nodes.push(h("em", {}, renderInline(text.slice(at + 1, close), depth + 1)));
        at = close + 1;
        continue;
      }
    } else if (depth < 3 && char === "[") {
      const middle = next.of("](", at + 1);
      const close = middle === -1 ? -1 : next.of(")", middle + 2);
      const href = close === -1 ? "" : text.slice(middle + 2, close).trim();
      if (middle > at + 1 && close !== -1 && safeLink(href) && !text.slice(at + 1, middle).includes("\n")) {
        flush();
        nodes.push(h("a", { href, rel: "noopener noreferrer", target: "_blank" }, renderInline(text.slice(at + 1, middle), depth + 1)));
        at = close + 1;
        continue;
      }
    }
    plain += char;
    at += 1;
  }
  flush();
  return nodes;
}

/** `*x*` and `_x_`: the marker starts a word (so `snake_case` and `2*3*4` stay as typed) and is followed by a non-space. */
function opensEmphasis(text: string, at: number): boolean {
  const before = text[at - 1] ?? " ";
  const after = text[at + 1] ?? " ";
  return !/[\p{L}\p{N}]/u.test(before) && !/\s/.test(after) && after !== text[at];
}

function safeLink(href: string): boolean {
  return /^(https?:\/\/|mailto:)[^\s]+$/i.test(href);
}

/**
 * `indexOf` that remembers: each delimiter's next place is looked up again
 * only once the scan has passed it, and a delimiter found nowhere is never
 * looked for again, so the scan stays linear however many open markers a
 * text has.
 */
class NextIndex {
  #found = new Map<string, { from: number; at: number }>();

  constructor(private readonly text: string) {}

  of(delimiter: string, from: number): number {
    const known = this.#found.get(delimiter);
    if (known && known.from <= from && (known.at === -1 || known.at >= from)) return known.at;
    const at = this.text.indexOf(delimiter, from);
    this.#found.set(delimiter, { from, at });
    return at;
  }
}
