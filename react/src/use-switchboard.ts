/** `useSwitchboard()`: the provider's client, for any route the hooks do not cover (`client.agents.runs(…)`, `client.spaces.tools(…)`…). */
import type { Switchboard } from "@switchboard/client";
import { useSwitchboardStore } from "./switchboard-context.js";

export function useSwitchboard(): Switchboard {
  return useSwitchboardStore("useSwitchboard").client;
}
