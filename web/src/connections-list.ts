/**
 * Connected accounts as a list with a Revoke button each, shared by the live
 * page (a person's own) and the console (everyone's, or one entity's, with
 * the secret key). It shows what the gateway lists and nothing more: the
 * service, the scopes, the issuer and the times, never a token. Revoking
 * asks first, in place (the button becomes a question with Revoke and
 * Cancel), then reads the list again so a revoked row shows as revoked.
 */
import type { Switchboard } from "../../client/src/index";
import { h } from "./dom";

export type AccountConnection = Awaited<ReturnType<Switchboard["accounts"]["list"]>>["connections"][number];

export type ConnectionsListOptions = {
  client: Switchboard;
  /** `mine`: the signed-in person's own; `everyone`: with the secret key, `entityId` for one entity's. */
  whose: { kind: "mine" } | { kind: "everyone"; entityId?: string };
  /** What the list says when there is nothing to show. */
  emptyText: string;
};

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

function when(iso: string | null): string {
  if (!iso) return "—";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** Every connection the caller may see, all pages read. */
async function readAll(options: ConnectionsListOptions): Promise<AccountConnection[]> {
  const entityId = options.whose.kind === "everyone" ? options.whose.entityId : undefined;
  const all: AccountConnection[] = [];
  let cursor: string | undefined;
  do {
    const page = await options.client.accounts.list({ ...(entityId && { entityId }), limit: 100, ...(cursor && { cursor }) });
    all.push(...page.connections);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return all;
}

/** The list, read now; `element` is ready to show (filled in when the gateway answers). */
export function connectionsList(options: ConnectionsListOptions): { element: HTMLElement; loaded: Promise<void> } {
  const operator = options.whose.kind === "everyone";
  const status = h("p", { class: "connections-status", role: "status" });
  const problem = h("div", { class: "problems", role: "alert" });
  const list = h("ul", { class: "connections", "aria-label": "Connected accounts", "aria-busy": "true" });
  const element = h("div", { class: "connections-list" }, status, problem, list);

  const load = async () => {
    list.setAttribute("aria-busy", "true");
    try {
      const connections = await readAll(options);
      problem.textContent = "";
      list.replaceChildren(...(connections.length === 0 ? [h("li", { class: "empty" }, options.emptyText)] : connections.map((connection) => row(connection, operator, revoke))));
    } catch (error) {
      problem.textContent = `Could not list the connected accounts: ${errorText(error)}`;
    } finally {
      list.setAttribute("aria-busy", "false");
      element.dataset.ready = "true";
    }
  };

  const revoke = async (connection: AccountConnection): Promise<void> => {
    await options.client.accounts.revoke(connection.connectionKey, operator ? { entityId: connection.entityId } : {});
    status.textContent = `Revoked ${connection.connectionKey}${operator ? ` for ${connection.entityId}` : ""}. Its tokens are erased.`;
    await load();
  };

  return { element, loaded: load() };
}

function row(connection: AccountConnection, operator: boolean, revoke: (connection: AccountConnection) => Promise<void>): HTMLElement {
  const revoked = connection.revokedAt !== null;
  const facts = h(
    "dl",
    { class: "connection-facts" },
    operator ? [h("dt", {}, "Whose"), h("dd", {}, h("code", {}, connection.entityId))] : null,
    h("dt", {}, "Scopes"),
    h("dd", {}, connection.scopes.length > 0 ? connection.scopes.join(" ") : "—"),
    h("dt", {}, "Issuer"),
    h("dd", {}, connection.issuer ?? "—"),
    h("dt", {}, "Connected"),
    h("dd", {}, when(connection.createdAt)),
    revoked ? [h("dt", {}, "Revoked"), h("dd", {}, when(connection.revokedAt))] : [h("dt", {}, "Expires"), h("dd", {}, when(connection.expiresAt))],
  );
  const actions = h("div", { class: "connection-actions" });
  const outcome = h("div", { class: "problems", role: "alert" });
  const ask = () => {
    const yes = h("button", { type: "button", class: "danger confirm-revoke" }, "Revoke");
    const no = h("button", { type: "button", class: "secondary cancel-revoke" }, "Cancel");
    no.addEventListener("click", offer);
    yes.addEventListener("click", async () => {
      yes.disabled = true;
      no.disabled = true;
      outcome.textContent = "";
      try {
        await revoke(connection);
      } catch (error) {
        outcome.textContent = `Not revoked: ${errorText(error)}`;
        offer();
      }
    });
    const question = `Revoke ${connection.connectionKey}? Tools that act as ${operator ? connection.entityId : "you"} there stop working until the account is connected again.`;
    actions.replaceChildren(h("p", { class: "confirm-question" }, question), yes, no);
    no.focus();
  };
  function offer() {
    const button = h("button", { type: "button", class: "secondary revoke" }, "Revoke", h("span", { class: "visually-hidden" }, ` ${connection.connectionKey}`));
    button.addEventListener("click", ask);
    actions.replaceChildren(button);
  }
  if (!revoked) offer();
  return h(
    "li",
    { class: "account-connection", "data-connection-key": connection.connectionKey, "data-entity-id": connection.entityId, "data-state": revoked ? "revoked" : "connected" },
    h(
      "div",
      { class: "connection-head" },
      h("code", { class: "connection-key" }, connection.connectionKey),
      h("span", { class: `connection-state ${revoked ? "revoked" : "connected"}` }, revoked ? "revoked" : "connected"),
    ),
    facts,
    actions,
    outcome,
  );
}
