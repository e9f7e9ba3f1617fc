/**
 * `<SwitchboardProvider client={switchboard}>` or
 * `<SwitchboardProvider options={{ baseUrl, publicKey, token }}>`: gives the
 * components under it a client, and shares between them one connection per
 * open space, who the client acts as, and the tool handlers.
 */
import { Switchboard, type SwitchboardOptions } from "@switchboard/client";
import { type ReactNode, useMemo } from "react";
import { SwitchboardContext } from "./switchboard-context.js";
import { SwitchboardStore } from "./switchboard-store.js";

export type SwitchboardProviderProps = { children?: ReactNode } & (
  | {
      /** A client you made (`new Switchboard({ baseUrl, publicKey, token })`). */
      client: Switchboard;
      options?: never;
    }
  | {
      /** The options to make one. Keep the object stable (a constant, `useMemo`): a new object makes a new client, and the spaces open again. */
      options: SwitchboardOptions;
      client?: never;
    }
);

export function SwitchboardProvider({ client, options, children }: SwitchboardProviderProps): ReactNode {
  // Nothing to close here: a space's connection closes when the last component that shows it goes (with the
  // provider, or when a new client makes the components under it use the new store's spaces).
  const store = useMemo(() => new SwitchboardStore(clientOf(client, options)), [client, options]);
  return <SwitchboardContext.Provider value={store}>{children}</SwitchboardContext.Provider>;
}

function clientOf(client: Switchboard | undefined, options: SwitchboardOptions | undefined): Switchboard {
  if (client) return client;
  if (!options) throw new TypeError("SwitchboardProvider needs a client, or the options to make one ({ baseUrl, publicKey, token })");
  return new Switchboard(options);
}
