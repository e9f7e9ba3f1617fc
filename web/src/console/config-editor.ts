/**
 * The console's JSON editor: a text area with line numbers, and the
 * problems the gateway found (a 400's `details[{path, message}]`) or the
 * syntax error found here, each shown beside the line it names and listed
 * underneath. The lines follow the text as it is edited (paths are located
 * again whenever the text is JSON), until the next save replaces them.
 */
import { h } from "../dom";
import { locateJson } from "./json-locations";

export type Problem = { path: string; message: string };

/** The gateway's `details` of a validation error, as problems (anything else: none). */
export function problemsOf(details: unknown, prefix: string): Problem[] {
  if (!Array.isArray(details)) return [];
  const problems: Problem[] = [];
  for (const detail of details) {
    if (typeof detail !== "object" || detail === null || !("path" in detail) || !("message" in detail)) continue;
    if (typeof detail.path !== "string" || typeof detail.message !== "string") continue;
    // The route names a path in its body (`config.model.name`): the editor holds what is under `prefix`.
    const path = detail.path === prefix ? "" : detail.path.startsWith(`${prefix}.`) ? detail.path.slice(prefix.length + 1) : detail.path;
    problems.push({ path, message: detail.message });
  }
  return problems;
}

export class ConfigEditor {
  readonly element: HTMLElement;
  readonly textarea: HTMLTextAreaElement;
  readonly #gutter = h("div", { class: "gutter-lines" });
  readonly #notes = h("div", { class: "line-notes-inner" });
  readonly #bands = h("div", { class: "line-bands-inner" });
  readonly #list = h("ul", { class: "editor-problems", role: "alert" });
  #problems: Problem[] = [];
  #syntax: { line: number; column: number; message: string } | undefined;
  #lineCount = 0;

  constructor(text: string, label: string) {
    this.textarea = h("textarea", { class: "code", wrap: "off", spellcheck: "false", autocomplete: "off", "aria-label": label, id: "config-text" });
    this.textarea.value = text;
    this.textarea.addEventListener("input", () => this.#refresh());
    this.textarea.addEventListener("scroll", () => this.#follow());
    this.textarea.addEventListener("keydown", (event) => {
      // Tab indents instead of leaving the editor (Shift+Tab still leaves it).
      if (event.key !== "Tab" || event.shiftKey) return;
      event.preventDefault();
      this.textarea.setRangeText("  ", this.textarea.selectionStart, this.textarea.selectionEnd, "end");
      this.#refresh();
    });
    this.element = h(
      "div",
      { class: "config-editor" },
      h(
        "div",
        { class: "editor-frame" },
        h("div", { class: "gutter", "aria-hidden": "true" }, this.#gutter),
        h("div", { class: "editor-body" }, h("div", { class: "line-bands", "aria-hidden": "true" }, this.#bands), this.textarea),
        h("div", { class: "line-notes", "aria-hidden": "true" }, this.#notes),
      ),
      this.#list,
    );
    this.#refresh();
  }

  get text(): string {
    return this.textarea.value;
  }

  set text(text: string) {
    this.textarea.value = text;
    this.#syntax = undefined;
    this.#refresh();
  }

  /** The text as JSON, or undefined with its syntax error shown at its line. */
  read(): unknown {
    const located = locateJson(this.textarea.value);
    if (!located.ok) {
      this.#syntax = { line: located.line, column: located.column, message: located.message };
      this.#problems = [];
      this.#render();
      this.#scrollTo(located.line);
      return undefined;
    }
    this.#syntax = undefined;
    return located.value;
  }

  /** Shows the gateway's problems at their lines, and scrolls to the first. */
  showProblems(problems: Problem[]): void {
    this.#problems = problems;
    this.#syntax = undefined;
    const lines = this.#render();
    if (lines.length > 0) this.#scrollTo(Math.min(...lines));
  }

  clearProblems(): void {
    this.showProblems([]);
  }

  #refresh(): void {
    const lines = this.textarea.value.split("\n").length;
    if (lines !== this.#lineCount) {
      this.#lineCount = lines;
      this.#gutter.replaceChildren(...Array.from({ length: lines }, (_, index) => h("div", { class: "gutter-line", "data-line": index + 1 }, String(index + 1))));
    }
    // A syntax error shown earlier goes once the text reads again.
    if (this.#syntax && locateJson(this.textarea.value).ok) this.#syntax = undefined;
    this.#render();
  }

  /** Draws the problems; returns the lines they are on. */
  #render(): number[] {
    const located = locateJson(this.textarea.value);
    // `note` is what shows beside the line: the message alone when the line is the path's own, else with the path it is about.
    type Placed = { line: number; message: string; note: string; path: string };
    const placed: Placed[] = [];
    if (this.#syntax) {
      const message = `${this.#syntax.message} (column ${this.#syntax.column})`;
      placed.push({ line: this.#syntax.line, message, note: message, path: "" });
    }
    for (const problem of this.#problems) {
      const where = located.ok ? located.lineOf(problem.path) : { line: 1, exact: false };
      const note = where.exact || problem.path === "" ? problem.message : `${problem.path}: ${problem.message}`;
      placed.push({ line: where.line, message: problem.message, note, path: problem.path });
    }
    for (const line of this.#gutter.children) line.classList.remove("has-problem");
    const byLine = new Map<number, Placed[]>();
    for (const item of placed) byLine.set(item.line, [...(byLine.get(item.line) ?? []), item]);
    const notes: HTMLElement[] = [];
    const bands: HTMLElement[] = [];
    for (const [line, items] of byLine) {
      this.#gutter.children[line - 1]?.classList.add("has-problem");
      const top = `calc(${line - 1} * var(--line-height))`;
      bands.push(h("div", { class: "line-band", style: `top: ${top}` }));
      const text = items.map((item) => item.note).join(" · ");
      notes.push(h("div", { class: "line-note", style: `top: ${top}`, title: text, "data-line": line, "data-path": items.map((item) => item.path).join(" ") }, text));
    }
    this.#notes.replaceChildren(...notes);
    this.#bands.replaceChildren(...bands);
    this.#list.replaceChildren(
      ...placed
        .sort((a, b) => a.line - b.line)
        .map((item) =>
          h(
            "li",
            { "data-path": item.path, "data-line": item.line },
            h("button", { type: "button", class: "link", onclick: () => this.#goToLine(item.line) }, `line ${item.line}`),
            item.path ? h("code", {}, item.path) : null,
            h("span", {}, item.message),
          ),
        ),
    );
    this.element.classList.toggle("has-problems", placed.length > 0);
    this.#follow();
    return placed.map((item) => item.line);
  }

  /** Scrolls so that `line` shows with two lines above it. */
  #scrollTo(line: number): void {
    const lineHeight = Number.parseFloat(getComputedStyle(this.textarea).lineHeight) || 20;
    this.textarea.scrollTop = Math.max(0, (line - 3) * lineHeight);
    this.#follow();
  }

  #follow(): void {
    const offset = `translateY(${-this.textarea.scrollTop}px)`;
    this.#gutter.style.transform = offset;
    this.#notes.style.transform = offset;
    this.#bands.style.transform = `translate(${-this.textarea.scrollLeft}px, ${-this.textarea.scrollTop}px)`;
  }

  #goToLine(line: number): void {
    const starts = [0];
    const text = this.textarea.value;
    for (let at = 0; at < text.length; at += 1) if (text[at] === "\n") starts.push(at + 1);
    const start = starts[line - 1] ?? 0;
    const end = text.indexOf("\n", start);
    this.textarea.focus();
    this.textarea.setSelectionRange(start, end === -1 ? text.length : end);
    this.#scrollTo(line);
  }
}
