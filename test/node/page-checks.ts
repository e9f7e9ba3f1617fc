/** Checks the browser tests run inside a page: what sticks out sideways, and axe-core's serious accessibility violations. */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** What sticks out sideways: every drawn element past the viewport's left or right edge, and whether the page scrolls sideways. */
export async function overflow(page: Page): Promise<{ wider: string[]; scrollsSideways: boolean }> {
  return page.evaluate(() => {
    const wider: string[] = [];
    for (const element of document.body.querySelectorAll("*")) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      if (box.left < -0.5 || box.right > window.innerWidth + 0.5)
        wider.push(`${element.tagName.toLowerCase()}.${element.className} [${Math.round(box.left)}, ${Math.round(box.right)}]`);
    }
    return { wider, scrollsSideways: document.documentElement.scrollWidth > window.innerWidth || document.body.scrollWidth > window.innerWidth };
  });
}

export type Violation = { id: string; impact: string | null; help: string; nodes: string[] };

/** axe-core's rules (WCAG 2.x A and AA, and its best practices) run inside the page: the violations that are serious or critical. */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: axeSource });
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            context: Document,
            options: object,
          ): Promise<{ violations: { id: string; impact?: string | null; help: string; nodes: { target: unknown[]; failureSummary?: string }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact ?? null,
      help: violation.help,
      nodes: violation.nodes.map((node) => `${node.target.join(" ")}: ${node.failureSummary ?? ""}`),
    }));
  });
  return violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
}
