/**
 * A call that waits for a person to connect an account (`part.account`): the
 * service and the scopes it asks for, until when, and for the person it is
 * for a "Connect" button. The button asks the gateway for that person's
 * one-time link and opens it in a new tab, where the service's sign-in and
 * consent pages are; when they are done the call goes on by itself and the
 * card shows its result. A browser that blocks the new tab gets the link to
 * follow instead. Everyone else sees who it waits for (the card never holds
 * a link: each is made for the person, on their click).
 */
import { cardNotes, type ToolCardContext, whenText } from "./card-context";
import { h } from "./dom";

export function accountCard(context: ToolCardContext): HTMLElement {
  const { part } = context;
  const account = part.account;
  if (!account) return h("div", { class: "tool-body" });
  const scopes = account.scopes.length > 0 ? h("p", { class: "account-scopes" }, "It asks for: ", h("code", {}, account.scopes.join(" "))) : null;
  const until = h("p", { class: "account-until" }, `The agent waits until ${whenText(account.expiresAt)}.`);
  const body = h("div", { class: "tool-body account-request", "data-service": account.service });
  if (!context.permission.ok) {
    body.append(h("p", {}, `Waits for ${context.nameOf(account.entityId)} to connect ${account.service}.`), ...(scopes ? [scopes] : []), until);
    const notes = cardNotes(context);
    if (notes) body.append(notes);
    return body;
  }
  const problems = h("div", { class: "problems", role: "alert" });
  const follow = h("p", { class: "account-link" });
  const connect = h("button", { type: "button", class: "primary connect-account" }, `Connect ${account.service}`);
  connect.addEventListener("click", async () => {
    connect.disabled = true;
    problems.textContent = "";
    follow.replaceChildren();
    // The tab is opened on the click itself (a later one would be blocked), then sent to the link.
    const tab = window.open("", "_blank");
    try {
      const { startUrl } = await context.connectLink(account.flowId);
      if (tab) {
        tab.opener = null;
        tab.location.href = startUrl;
        follow.replaceChildren(
          `Finish in the new tab; this card goes on by itself. No tab? `,
          h("a", { href: startUrl, target: "_blank", rel: "noopener" }, "Open the sign-in page"),
        );
      } else {
        follow.replaceChildren(h("a", { href: startUrl, target: "_blank", rel: "noopener" }, `Open the ${account.service} sign-in page`));
      }
    } catch (error) {
      tab?.close();
      problems.textContent = `Could not start connecting: ${(error as Error).message}`;
    } finally {
      connect.disabled = false;
    }
  });
  body.append(
    h("p", {}, `The agent needs your ${account.service} account to go on.`),
    ...(scopes ? [scopes] : []),
    until,
    h("div", { class: "actions" }, connect),
    follow,
    problems,
  );
  return body;
}
