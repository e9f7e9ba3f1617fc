/**
 * `useConnectAccount(flowId)`: connects the account a card asks the
 * signed-in person for (`call.account.flowId`). `connect()` asks the gateway
 * for the person's one-time link and opens it in a new tab (opened on the
 * click itself, so browsers let it open), where the service's sign-in and
 * consent pages are; when the person is done there, the call goes on by
 * itself and the card shows its result. `link` is the link that was opened,
 * to offer when the browser blocked the tab; `error` says why there is none
 * (a 404: the card is for someone else, or its wait is over). `connect()`
 * never throws: it resolves to the link, or undefined.
 */
import { useCallback, useState } from "react";
import { useSwitchboardStore } from "./switchboard-context.js";

export type ConnectAccountState = {
  connect(): Promise<string | undefined>;
  pending: boolean;
  link: string | undefined;
  error: Error | undefined;
};

export function useConnectAccount(flowId: string): ConnectAccountState {
  const store = useSwitchboardStore("useConnectAccount");
  const [state, setState] = useState<Omit<ConnectAccountState, "connect">>({ pending: false, link: undefined, error: undefined });
  const connect = useCallback(async (): Promise<string | undefined> => {
    const tab = typeof window === "undefined" ? null : window.open("", "_blank");
    setState({ pending: true, link: undefined, error: undefined });
    try {
      const { startUrl } = await store.client.accounts.connectLink(flowId);
      if (tab) {
        tab.opener = null;
        tab.location.href = startUrl;
      }
      setState({ pending: false, link: startUrl, error: undefined });
      return startUrl;
    } catch (error) {
      tab?.close();
      setState({ pending: false, link: undefined, error: error instanceof Error ? error : new Error(String(error)) });
      return undefined;
    }
  }, [store, flowId]);
  return { ...state, connect };
}
