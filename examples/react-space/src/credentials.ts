/**
 * Who the example signs in as: the gateway's public key and a person's JWT,
 * handed in by the address (`#publicKey=…&token=…&space=…`, or the same as a
 * query) or typed into the form. Kept in the tab's session storage, and taken
 * out of the address bar at once.
 */
export type Credentials = { publicKey: string; token: string };

const storageKey = "switchboard-react-example";

/** The credentials the address brings (then removed from it), else the ones this tab kept. */
export function readCredentials(): Credentials | undefined {
  const url = new URL(location.href);
  const fragment = new URLSearchParams(url.hash.slice(1));
  const publicKey = fragment.get("publicKey") ?? url.searchParams.get("publicKey");
  const token = fragment.get("token") ?? url.searchParams.get("token");
  const space = fragment.get("space") ?? url.searchParams.get("space");
  if (publicKey && token) {
    url.hash = "";
    for (const name of ["publicKey", "token"]) url.searchParams.delete(name);
    if (space) url.searchParams.set("space", space);
    history.replaceState(null, "", url);
    saveCredentials({ publicKey, token });
    return { publicKey, token };
  }
  return storedCredentials();
}

export function saveCredentials(credentials: Credentials): void {
  sessionStorage.setItem(storageKey, JSON.stringify(credentials));
}

export function forgetCredentials(): void {
  sessionStorage.removeItem(storageKey);
}

/** The space the address asks for (`?space=spc_…`). */
export function wantedSpace(): string | undefined {
  return new URL(location.href).searchParams.get("space") ?? undefined;
}

function storedCredentials(): Credentials | undefined {
  const stored = sessionStorage.getItem(storageKey);
  if (!stored) return undefined;
  try {
    const value: unknown = JSON.parse(stored);
    if (typeof value === "object" && value !== null && "publicKey" in value && "token" in value && typeof value.publicKey === "string" && typeof value.token === "string") {
      return { publicKey: value.publicKey, token: value.token };
    }
  } catch {
    // Not ours, or damaged: sign in again.
  }
  sessionStorage.removeItem(storageKey);
  return undefined;
}
