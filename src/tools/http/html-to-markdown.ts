/**
 * Readable text of an HTML page, as light markdown, with the runtime's own
 * streaming HTMLRewriter (no library in the bundle): headings, paragraphs,
 * lists, links, emphasis, code blocks and table rows survive; scripts,
 * styles, templates, SVG and the head (but its title) do not. Handlers run in
 * document order, so a little state (what is open, whether inside `<pre>`) is
 * enough; a missing end tag costs a marker, never text.
 */
import { dropEmptyLinks, trimAroundLineBreaks } from "./markdown-links";

const skipped = new Set(["script", "style", "noscript", "template", "svg", "iframe", "canvas", "object", "head", "select", "button"]);
const blocks = new Set([
  "p",
  "div",
  "section",
  "article",
  "main",
  "header",
  "footer",
  "nav",
  "aside",
  "ul",
  "ol",
  "dl",
  "table",
  "blockquote",
  "figure",
  "figcaption",
  "form",
  "fieldset",
  "address",
  "details",
  "summary",
]);
const voidElements = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"]);
const headings: Record<string, string> = { h1: "# ", h2: "## ", h3: "### ", h4: "#### ", h5: "##### ", h6: "###### " };

export type PageText = { title: string | undefined; text: string };

export async function htmlToMarkdown(html: string, baseUrl: string): Promise<PageText> {
  const out: string[] = [];
  let skipDepth = 0;
  let preDepth = 0;
  let inTitle = false;
  let title = "";
  const push = (text: string) => out.push(text);
  const absolute = (href: string | null) => {
    if (!href) return undefined;
    try {
      const url = new URL(decodeEntities(href), baseUrl);
      return url.protocol === "http:" || url.protocol === "https:" || url.protocol === "mailto:" ? url.toString() : undefined;
    } catch {
      return undefined;
    }
  };

  const rewriter = new HTMLRewriter()
    .on("*", {
      element(element) {
        const tag = element.tagName;
        // The runtime knows these flags; its published types do not yet.
        const flags = element as Element & { canHaveContent?: boolean; selfClosing?: boolean };
        const hasEnd = flags.canHaveContent !== false && flags.selfClosing !== true && !voidElements.has(tag);
        const endTag = (handler: () => void) => {
          if (hasEnd) element.onEndTag(handler);
        };
        if (tag === "title") {
          inTitle = true;
          endTag(() => {
            inTitle = false;
          });
          return;
        }
        if (skipped.has(tag)) {
          skipDepth += 1;
          // Without an end tag (a void or self-closed element) there is nothing to skip.
          if (hasEnd) endTag(() => (skipDepth = Math.max(0, skipDepth - 1)));
          else skipDepth -= 1;
          return;
        }
        if (skipDepth > 0) return;
        if (tag in headings) {
          push(`\n\n${headings[tag]}`);
          endTag(() => push("\n\n"));
        } else if (tag === "pre") {
          push("\n\n```\n");
          preDepth += 1;
          endTag(() => {
            preDepth = Math.max(0, preDepth - 1);
            push("\n```\n\n");
          });
        } else if (tag === "li") push("\n- ");
        else if (tag === "br") push("\n");
        else if (tag === "hr") push("\n\n---\n\n");
        else if (tag === "tr") push("\n| ");
        else if (tag === "td" || tag === "th") endTag(() => push(" | "));
        else if (tag === "dt") push("\n\n");
        else if (tag === "dd") push("\n: ");
        else if (tag === "a") {
          const href = absolute(element.getAttribute("href"));
          if (href) {
            push("[");
            endTag(() => push(`](${href})`));
          }
        } else if (tag === "img") {
          const alt = element.getAttribute("alt")?.trim();
          const src = absolute(element.getAttribute("src"));
          if (alt && src) push(`![${decodeEntities(alt)}](${src})`);
        } else if ((tag === "strong" || tag === "b") && preDepth === 0) {
          push("**");
          endTag(() => push("**"));
        } else if ((tag === "em" || tag === "i") && preDepth === 0) {
          push("_");
          endTag(() => push("_"));
        } else if (tag === "code" && preDepth === 0) {
          push("`");
          endTag(() => push("`"));
        } else if (blocks.has(tag)) {
          push("\n\n");
          if (tag === "blockquote") push("> ");
          endTag(() => push("\n\n"));
        }
      },
    })
    .onDocument({
      text(chunk) {
        if (inTitle) {
          title += chunk.text;
          return;
        }
        if (skipDepth > 0 || chunk.text === "") return;
        const text = decodeEntities(chunk.text);
        push(preDepth > 0 ? text : text.replace(/\s+/g, " "));
      },
    });

  await rewriter.transform(new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } })).arrayBuffer();
  return { title: title.trim() ? decodeEntities(title).replace(/\s+/g, " ").trim() : undefined, text: tidy(out.join("")) };
}

/**
 * Collapses the whitespace the markers left (no spaces around line breaks, at
 * most one blank line, empty markers dropped), outside code blocks only:
 * inside them every space is the page's. Linear in the text (a page is up to
 * 5 MB): the code-block split fails only from an opening fence with no fence
 * after it, which only the last one or two can be; `**  **` and "``" are
 * tried only where they start and scan one run of spaces; the rest is done
 * by the scanners of markdown-links.ts, not by expressions that rescan.
 */
function tidy(text: string): string {
  return text
    .split(/(\n```\n[\s\S]*?\n```\n)/)
    .map((piece, index) => (index % 2 === 1 ? piece : dropEmptyLinks(trimAroundLineBreaks(piece).replace(/\*\*\s*\*\*|(?<!`)``(?!`)/g, ""))))
    .join("")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** Latin-1's named entities, in code point order from U+00A0. */
const latin1 =
  "nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml";

const named: Record<string, string> = {
  ...Object.fromEntries(latin1.split(" ").map((name, index) => [name, String.fromCharCode(0xa0 + index)])),
  nbsp: " ",
  shy: "",
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  trade: "™",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  lsquo: "‘",
  rsquo: "’",
  sbquo: "‚",
  ldquo: "“",
  rdquo: "”",
  bdquo: "„",
  bull: "•",
  euro: "€",
  dagger: "†",
  permil: "‰",
  prime: "′",
  larr: "←",
  rarr: "→",
  uarr: "↑",
  darr: "↓",
  harr: "↔",
  hearts: "♥",
  check: "✓",
  minus: "−",
  le: "≤",
  ge: "≥",
  ne: "≠",
  infin: "∞",
  alpha: "α",
  beta: "β",
  pi: "π",
  oelig: "œ",
  OElig: "Œ",
  zwj: "",
  zwnj: "",
  thinsp: " ",
  ensp: " ",
  emsp: " ",
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z][a-z0-9]{1,31});/gi, (match, entity: string) => {
    if (entity[0] === "#") {
      const code = entity[1] === "x" || entity[1] === "X" ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : match;
    }
    return named[entity] ?? named[entity.toLowerCase()] ?? match;
  });
}
