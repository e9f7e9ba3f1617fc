/**
 * Where a tool call appears (§5, §6, seed 003): `displayTool` with a
 * `targetSpaceId` → that space (the agent must be a member); `visible` (and
 * every tool a person answers in the space) → the active space, or the
 * contract's "not in a space" error; `display.mode: "hidden"` → nowhere.
 */
import type { ToolContext } from "../tool-context";
import type { ToolDisplaySettings } from "./resolved-tool";
import type { ToolCard } from "./tool-events";

export type DisplayDecision = { ok: true; card?: ToolCard } | { ok: false; error: string };

function card(tool: ToolDisplaySettings, spaceId: string): ToolCard {
  return { spaceId, minimal: tool.display?.mode === "minimal", ...(tool.display?.customUI && { customUI: tool.display.customUI }) };
}

/** Whether the call goes to the active space (as opposed to a target or nowhere). */
export function usesActiveSpace(tool: ToolDisplaySettings): boolean {
  if (tool.display?.mode === "hidden") return false;
  if (tool.displayTool) return tool.visible === true;
  return tool.answeredInSpace === true || (tool.visible ?? tool.defaultVisible);
}

export async function decideDisplay(tool: ToolDisplaySettings, context: ToolContext, targetSpaceId: string | undefined): Promise<DisplayDecision> {
  if (tool.display?.mode === "hidden" && !tool.answeredInSpace) return { ok: true };
  if (tool.displayTool && targetSpaceId !== undefined) {
    if (!(await context.isMemberOf(targetSpaceId))) {
      return { ok: false, error: `Tool "${tool.name}" cannot be shown in space "${targetSpaceId}": you are not a member of it` };
    }
    return { ok: true, card: card(tool, targetSpaceId) };
  }
  if (!usesActiveSpace(tool) && !tool.answeredInSpace) return { ok: true };
  const active = context.getActiveSpaceId();
  if (!active) return { ok: false, error: `Tool "${tool.name}" is visible but you are not in a space. Call enter_space first.` };
  return { ok: true, card: card(tool, active) };
}
