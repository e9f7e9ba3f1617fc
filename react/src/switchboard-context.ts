/** The context a `SwitchboardProvider` fills, and the one way hooks read it (with a clear error outside a provider). */
import { createContext, useContext } from "react";
import type { SwitchboardStore } from "./switchboard-store.js";

export const SwitchboardContext = createContext<SwitchboardStore | undefined>(undefined);

export function useSwitchboardStore(hook: string): SwitchboardStore {
  const store = useContext(SwitchboardContext);
  if (!store) throw new Error(`${hook} must be used inside <SwitchboardProvider>`);
  return store;
}
