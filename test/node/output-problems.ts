/**
 * Did a shell example do what its document says? What it printed must match
 * what the document shows, and nothing may have gone wrong on the way. A
 * document shows output two ways: in the fence right after the block
 * (`shownOutput`), and as `# {…}` comments under the command that prints them.
 * In both, `…` stands for anything (an id, a time, the rest of an answer), a
 * whole ISO time for any time, `http://localhost:8787` (where `npm run dev`
 * listens) for the gateway's URL, and spacing is free. A ```json fence is
 * matched whole; each line of any other fence, and each comment, must be
 * found in the output on its own (parallel calls may print in either order).
 *
 * A block's status is its last command's, so what fails before that shows
 * only on the way, and is a failure too: a command that failed (the session
 * tells each on stderr); an error envelope in the output that the example
 * does not show (its code, in the block or the output after it); an error of
 * bash, curl (run with `show-error`, so `curl -s` still says why), jq or
 * Node (an uncaught error, a server that cannot listen) on stderr. Not a curl
 * that `--max-time` stops (how an example reads a stream for a while), nor
 * one that `until curl …` tries again (how it waits for a server it started).
 */
import type { DocExample } from "./doc-examples";
import { commandFailed } from "./shell-session";

const documentedBaseUrl = "http://localhost:8787";
const isoTime = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g;

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** The expected text as a pattern; `…` spans lines only when `acrossLines`. */
export function outputPattern(expected: string, baseUrl: string, acrossLines: boolean): RegExp {
  const anything = acrossLines ? "[\\s\\S]*?" : "[^\\n]*?";
  const times = expected.split(isoTime);
  const pattern = times
    .map((piece) =>
      piece
        .split(documentedBaseUrl)
        .map((part) =>
          part
            .split("…")
            .map((text) =>
              literal(text)
                // A year before `-…` (`"2026-…Z"`) is whatever year it is now.
                .replace(/\d{4}-$/, "\\d{4}-")
                .replace(/\s+/g, "\\s*"),
            )
            .join(anything),
        )
        .join(literal(baseUrl)),
    )
    .join("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?Z");
  return new RegExp(pattern);
}

/** The outputs a block shows in `# {…}` or `# […]` comments, a comment's indented continuation lines joined to it. */
export function commentOutputs(code: string): string[] {
  const outputs: string[] = [];
  let current: string | undefined;
  for (const line of code.split("\n")) {
    const comment = /^\s*# ?(.*)$/.exec(line)?.[1];
    if (comment !== undefined && /^[{[]/.test(comment)) {
      if (current !== undefined) outputs.push(current);
      current = comment;
    } else if (comment !== undefined && current !== undefined && /^\s/.test(comment)) {
      current += comment;
    } else if (current !== undefined) {
      outputs.push(current);
      current = undefined;
    }
  }
  if (current !== undefined) outputs.push(current);
  return outputs;
}

/** What the block printed that its document does not show, what it shows that was not printed, and the errors on the way. */
export function outputProblems(example: DocExample, stdout: string, stderr: string, baseUrl: string): string[] {
  const problems: string[] = [];
  const expectations: { text: string; acrossLines: boolean; where: string }[] = commentOutputs(example.code).map((text) => ({
    text,
    acrossLines: false,
    where: "a # comment in the block",
  }));
  if (example.output) {
    const where = `the output at line ${example.output.line}`;
    if (example.output.json) expectations.push({ text: example.output.text, acrossLines: true, where });
    else for (const line of example.output.text.split("\n")) if (line.trim() !== "") expectations.push({ text: line, acrossLines: false, where });
  }
  for (const { text, acrossLines, where } of expectations) {
    if (!outputPattern(text, baseUrl, acrossLines).test(stdout)) problems.push(`not printed (${where}): ${text}`);
  }
  const shown = `${example.code}\n${example.output?.text ?? ""}`;
  for (const match of stdout.matchAll(/"error"\s*:\s*\{\s*"code"\s*:\s*"([a-z_]+)"/g)) {
    if (!shown.includes(match[1])) problems.push(`an error answer the example does not show: ${stdout.slice(match.index, match.index + 300)}`);
  }
  for (const line of stderr.split("\n")) {
    const curl = /^curl: \((\d+)\)/.exec(line)?.[1];
    const stoppedOnPurpose = (curl === "28" && example.code.includes("--max-time")) || (curl === "7" && /\buntil curl\b/.test(example.code));
    const failed = line.startsWith(commandFailed) || /^jq: error|^parse error|^bash: |\.sh: line \d+: |^(?:[A-Z]\w*)?Error(?: \[\w+\])?: /.test(line);
    if ((curl && !stoppedOnPurpose) || failed) problems.push(`an error on stderr: ${line}`);
  }
  return problems;
}
