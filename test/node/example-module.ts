/**
 * A document's TypeScript examples as one module, in order (later ones use
 * what earlier ones made), between what the prose leaves to the reader and
 * what a test adds; with, for each line of the module, the document line it
 * came from, so a compiler's error can name the example. Shared by
 * packages.test.ts and docs-examples.test.ts.
 */
import type { DocExample } from "./doc-examples";

export type ExampleModule = { text: string; origins: (string | undefined)[] };

export function exampleModule(examples: Pick<DocExample, "doc" | "line" | "code">[], prelude = "", epilogue = ""): ExampleModule {
  const lines: string[] = [];
  const origins: (string | undefined)[] = [];
  const add = (text: string, origin?: (offset: number) => string) =>
    text.split("\n").forEach((line, offset) => {
      lines.push(line);
      origins.push(origin?.(offset));
    });
  add(prelude.trim());
  for (const example of examples) {
    add(`// ${example.doc}, the example at line ${example.line}`);
    add(example.code, (offset) => `${example.doc}:${example.line + 1 + offset}`);
  }
  add(epilogue.trim());
  return { text: `${lines.join("\n")}\n`, origins };
}

/** The compiler's report with each line that points into an example module followed by the document line it came from. */
export function locatedReport(report: string, modules: Record<string, ExampleModule>): string {
  return report.replace(/^([\w./-]+\.[cm]?tsx?)\((\d+),\d+\).*$/gm, (line, file: string, lineNumber: string) => {
    const origin = modules[file]?.origins[Number(lineNumber) - 1];
    return origin ? `${line}\n    (${origin})` : line;
  });
}

/** What each document's TypeScript leaves to the reader, for the compiler. */
export const docPreludes: Record<string, string> = {
  /** The README's example: where the gateway is and its keys (from the environment, so the program runs as it is). */
  "README.md": `
const baseUrl = setting("SWITCHBOARD_URL");
const secretKey = setting("GATEWAY_SECRET_KEY");
const publicKey = setting("GATEWAY_PUBLIC_KEY");
const jwtSecret = setting("JWT_SECRET");
function setting(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(name + " is not set");
  return value;
}
`,
  /** docs/client.md's: a page to draw on, a database, a warehouse. */
  "docs/client.md": `
declare function render(timeline: readonly unknown[]): void;
declare const db: { orders: { find(orderId: unknown, options: { signal: AbortSignal }): Promise<unknown> } };
declare const warehouse: { reserve(sku: unknown, quantity: unknown): Promise<unknown> };
`,
};
