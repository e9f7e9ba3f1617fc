/**
 * Where a tool call appears, and what public-key clients see of it:
 * `displayTool` with a `targetSpaceId` → that space (the agent must be a
 * member); `visible` (and every tool a person answers in the space) → the
 * active space, or the "not in a space" error; `display.mode: "hidden"` →
 * nowhere. `minimal` (and a prebuilt tool's default) shows public-key clients
 * only the call's id, name and status.
 */
import type { SpaceAccess } from "./tool-context";
import type { ToolDisplaySettings } from "./resolved-tool";
import type { ToolCard } from "./tool-events";

export type DisplayDecision = { ok: true; card?: ToolCard } | { ok: false; error: string };

type ModeSettings = Pick<ToolDisplaySettings, "display" | "defaultMode">;

/**
 * How a tool's calls show, decided once from the resolved tool whatever its
 * provider: the configured `display.mode`, else the tool's default (a
 * prebuilt tool's is `minimal`: public-key clients see its name, never its
 * input or output), else `full`.
 */
export function displayModeOf(tool: ModeSettings): "full" | "minimal" | "hidden" {
  return tool.display?.mode ?? tool.defaultMode ?? "full";
}

/** Whether public-key clients see only a call's id, name and status (its card, approval card, events and replay). */
export function hiddenFromPublic(tool: ModeSettings): boolean {
  return displayModeOf(tool) !== "full";
}

/** The default display mode of a configured tool of this execution type. */
export function defaultModeOf(executionType: string): "minimal" | undefined {
  return executionType === "prebuilt" ? "minimal" : undefined;
}

/** A tool's card in a space: what public-key clients may see of it, and the role its message is posted with, are decided here. */
export function cardFor(tool: ToolDisplaySettings, spaceId: string): ToolCard {
  return {
    spaceId,
    minimal: hiddenFromPublic(tool),
    ...(tool.display?.customUI && { customUI: tool.display.customUI }),
    ...(tool.display?.messageRole === "assistant" && { role: "assistant" as const }),
  };
}

/** Whether the call goes to the active space (as opposed to a target or nowhere). */
export function usesActiveSpace(tool: ToolDisplaySettings): boolean {
  if (tool.display?.mode === "hidden") return false;
  if (tool.displayTool) return tool.visible === true;
  return tool.answeredInSpace === true || (tool.visible ?? tool.defaultVisible);
}

export async function decideDisplay(tool: ToolDisplaySettings, context: SpaceAccess, targetSpaceId: string | undefined): Promise<DisplayDecision> {
  if (tool.display?.mode === "hidden" && !tool.answeredInSpace) return { ok: true };
  if (tool.displayTool && targetSpaceId !== undefined) {
    if (!(await context.isMemberOf(targetSpaceId))) {
      return { ok: false, error: `Tool "${tool.name}" cannot be shown in space "${targetSpaceId}": you are not a member of it` };
    }
    return { ok: true, card: cardFor(tool, targetSpaceId) };
  }
  if (!usesActiveSpace(tool) && !tool.answeredInSpace) return { ok: true };
  const active = context.getActiveSpaceId();
  if (!active) return { ok: false, error: `Tool "${tool.name}" is visible but you are not in a space. Call enter_space first.` };
  return { ok: true, card: cardFor(tool, active) };
}
