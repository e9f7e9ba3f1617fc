/** `useMe()`: who the provider's client acts as (`GET /api/me`: the entity and its spaces), read once per provider. */
import { useSyncExternalStore } from "react";
import type { MeSnapshot } from "./me-entry.js";
import { useSwitchboardStore } from "./switchboard-context.js";

export function useMe(): MeSnapshot {
  const { me } = useSwitchboardStore("useMe");
  return useSyncExternalStore(me.subscribe, me.getSnapshot, me.getSnapshot);
}
