/**
 * Who is signed in: the public key and a JWT, from the link `npm run dev`
 * prints (`/#publicKey=…&token=…`: a fragment never reaches a server) or from
 * the sign-in form; kept in this browser's localStorage until signing out.
 */
import { readTokenClaims } from "../../client/src/index";

export type Session = { publicKey: string; token: string };

const storageKey = "switchboard.session";

/** Takes credentials from the URL fragment (then removes them from the address bar), else from storage. */
export function readSession(): { session?: Session; spaceId?: string } {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const url = new URL(location.href);
  let spaceId = fragment.get("space") ?? url.searchParams.get("space") ?? undefined;
  const publicKey = fragment.get("publicKey");
  const token = fragment.get("token");
  if (publicKey && token) {
    saveSession({ publicKey, token });
    url.hash = "";
    if (spaceId) url.searchParams.set("space", spaceId);
    history.replaceState(null, "", url);
  }
  spaceId ??= undefined;
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(storageKey) ?? "null");
    if (stored && typeof stored === "object" && "publicKey" in stored && "token" in stored) {
      const session = stored as Session;
      if (typeof session.publicKey === "string" && typeof session.token === "string") return { session, spaceId };
    }
  } catch {
    // nothing usable stored
  }
  return { spaceId };
}

export function saveSession(session: Session): void {
  localStorage.setItem(storageKey, JSON.stringify(session));
}

export function clearSession(): void {
  localStorage.removeItem(storageKey);
}

/** When the token expires, if it says (seconds since the epoch). */
export function tokenExpiry(token: string): number | undefined {
  try {
    const { exp } = readTokenClaims(token);
    return typeof exp === "number" ? exp : undefined;
  } catch {
    return undefined;
  }
}

const operatorKey = "switchboard.operator";

/** An operator's secret key: kept in this tab's sessionStorage only (it gives full access), never in a link. */
export function readOperatorKey(): string | undefined {
  return sessionStorage.getItem(operatorKey) ?? undefined;
}

export function saveOperatorKey(secretKey: string): void {
  sessionStorage.setItem(operatorKey, secretKey);
}

export function clearOperatorKey(): void {
  sessionStorage.removeItem(operatorKey);
}
