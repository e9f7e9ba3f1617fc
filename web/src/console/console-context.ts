/**
 * What every view of the console gets: the SDK client (secret key), a way to
 * go to another view, the agents (read once, read again after a change), a
 * signal for when the view is left, and the helpers the views share: the agent picker, times and durations, errors
 * as the gateway said them.
 */
import type { AgentSummary, Switchboard } from "../../../client/src/index";
import { h } from "../dom";

export type ConsoleContext = {
  client: Switchboard;
  /** Goes to a view by its hash (`#agents/agt_…`); the view is drawn from the hash. */
  navigate(hash: string): void;
  /** Every agent, newest list from the gateway (`fresh` reads it again). */
  agents(fresh?: boolean): Promise<AgentSummary[]>;
  /** Aborted when the view drawn with this context is left (another view, the same one drawn again, sign out): a view closes what it keeps open (live streams) on it. */
  leaving: AbortSignal;
};

/** An error's message for people: the gateway's own words (the SDK error carries the request too). */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A problem line that a view shows in place of what it could not read or do. */
export function problemLine(text: string): HTMLElement {
  return h("div", { class: "problems", role: "alert" }, text);
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return "—";
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1_000)} s`;
}

/**
 * The agent the view is about, chosen from a list: the current one selected,
 * and choosing another goes to `hashFor(agentId)`.
 */
export async function agentPicker(context: ConsoleContext, current: string | undefined, hashFor: (agentId: string) => string): Promise<HTMLElement> {
  const agents = await context.agents();
  const select = h(
    "select",
    { id: "agent-picker", "aria-label": "Agent", onchange: () => context.navigate(hashFor(select.value)) },
    h("option", { value: "", disabled: true }, agents.length === 0 ? "No agents yet" : "Choose an agent…"),
    ...agents.map((agent) => h("option", { value: agent.id }, `${agent.name} (${agent.id})`)),
  );
  select.value = current && agents.some((agent) => agent.id === current) ? current : "";
  return h("label", { class: "agent-picker" }, h("span", {}, "Agent"), select);
}

/** A view's header: its title, then anything beside it (pickers, buttons). */
export function viewHeader(title: string, ...beside: (HTMLElement | null)[]): HTMLElement {
  return h("header", { class: "view-header" }, h("h1", {}, title), ...beside);
}

/** JSON shown in a collapsible block (open when short). */
export function jsonBlock(label: string, value: unknown, className = ""): HTMLElement {
  const text = value === undefined ? "—" : typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? String(value));
  const details = h("details", { class: `json-block ${className}`.trim() }, h("summary", {}, label), h("pre", {}, text));
  details.open = text.length <= 400;
  return details;
}
