/**
 * The console's connected accounts (`#connections`, `#connections/ent_…`):
 * who connected which service, with the scopes, the issuer and the times,
 * never a token; filtered to one entity, and revoked one at a time (asked
 * first). An agent can be named by its agent id: the filter turns it into
 * the agent's entity id, whose connections they are.
 */
import { h } from "../dom";
import { connectionsList } from "../connections-list";
import { type ConsoleContext, errorText, problemLine, viewHeader } from "./console-context";

export async function connectionsView(context: ConsoleContext, named: string | undefined): Promise<HTMLElement> {
  let entityId = named;
  if (named?.startsWith("agt_")) {
    try {
      entityId = (await context.client.agents.get(named)).entityId;
    } catch (error) {
      return h("section", { class: "view connections-view" }, viewHeader("Connections"), problemLine(`No agent ${named}: ${errorText(error)}`));
    }
  }
  const entity = h("input", { id: "connections-entity", name: "entityId", autocomplete: "off", placeholder: "ent_… or agt_…", value: entityId ?? "" });
  const filter = h(
    "form",
    {
      class: "connections-filter",
      onsubmit: (event: Event) => {
        event.preventDefault();
        const value = entity.value.trim();
        context.navigate(value ? `#connections/${encodeURIComponent(value)}` : "#connections");
      },
    },
    h("label", { for: "connections-entity" }, "Entity"),
    entity,
    h("button", { type: "submit", class: "secondary" }, "Show"),
    entityId ? h("a", { href: "#connections", class: "link" }, "Everyone's") : null,
  );
  const { element, loaded } = connectionsList({
    client: context.client,
    whose: { kind: "everyone", entityId },
    emptyText: entityId ? `No connected accounts for ${entityId}.` : "No connected accounts on this gateway yet.",
  });
  await loaded;
  return h(
    "section",
    { class: "view connections-view" },
    viewHeader("Connections", filter),
    h(
      "p",
      { class: "hint" },
      "Accounts people and agents connected at other services, as the gateway holds them. Revoking one erases its tokens at once; the row stays, marked revoked.",
    ),
    element,
  );
}
