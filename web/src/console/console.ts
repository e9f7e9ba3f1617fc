/**
 * The operator console (`/console`), served by the Worker like the live
 * page: signed in with the secret key (kept in this tab's sessionStorage
 * only, never in a link), it shows agents (with the config editor), runs,
 * pending calls, webhooks with dead letters, tool statistics, and connected
 * accounts (never a token), each view calling the gateway's routes through
 * the client SDK. The view comes from the address's fragment
 * (`#runs/agt_…`), so every view has a link. A view is told when it is left
 * (another view, sign out) and closes what it keeps open then: the Webhooks
 * view's live streams.
 */
import { type AgentSummary, Switchboard } from "../../../client/src/index";
import { h } from "../dom";
import { clearOperatorKey, readOperatorKey, saveOperatorKey } from "../session";
import { agentEditorView } from "./agent-editor-view";
import { agentsView } from "./agents-view";
import { connectionsView } from "./connections-view";
import { type ConsoleContext, errorText, problemLine } from "./console-context";
import { pendingCallsView } from "./pending-calls-view";
import { runView } from "./run-view";
import { runsView } from "./runs-view";
import { toolStatsView } from "./tool-stats-view";
import { webhooksView } from "./webhooks-view";

const app = document.getElementById("app") as HTMLElement;

const sections = [
  { id: "agents", title: "Agents", perAgent: false },
  { id: "runs", title: "Runs", perAgent: true },
  { id: "pending", title: "Pending calls", perAgent: true },
  { id: "webhooks", title: "Webhooks", perAgent: false },
  { id: "stats", title: "Tool stats", perAgent: true },
  { id: "connections", title: "Connections", perAgent: false },
] as const;

function signInView(problem?: string): void {
  const secretKey = h("input", { type: "password", name: "secretKey", id: "secretKey", autocomplete: "off", required: true, placeholder: "sk_…" });
  app.replaceChildren(
    h(
      "main",
      { class: "sign-in" },
      h("h1", {}, "Switchboard console"),
      h("p", {}, "For whoever runs this gateway: agents and their configs, runs, pending calls, webhooks, tool statistics and connected accounts."),
      h("p", { class: "hint" }, "Sign in with the secret key (GATEWAY_SECRET_KEY in .dev.vars locally). It stays in this tab only and is gone when the tab closes."),
      problem ? problemLine(problem) : null,
      h(
        "form",
        {
          onsubmit: (event: Event) => {
            event.preventDefault();
            void start(secretKey.value.trim());
          },
        },
        h("label", { for: "secretKey" }, "Secret key"),
        secretKey,
        h("button", { type: "submit", class: "primary" }, "Sign in"),
      ),
      h("p", { class: "hint" }, h("a", { href: "/" }, "The live page"), " · ", h("a", { href: "/reference/" }, "API reference")),
    ),
  );
  secretKey.focus();
}

async function start(secretKey: string): Promise<void> {
  const client = new Switchboard({ baseUrl: location.origin, secretKey });
  try {
    // A secret-key route: a wrong key is refused here, not in the first view.
    await client.agents.list({ limit: 1 });
  } catch (error) {
    clearOperatorKey();
    signInView(`Could not sign in: ${errorText(error)}`);
    return;
  }
  saveOperatorKey(secretKey);
  shell(client);
}

function shell(client: Switchboard): void {
  let agents: Promise<AgentSummary[]> | undefined;
  let lastAgentId: string | undefined;
  const readAgents = async () => {
    const all: AgentSummary[] = [];
    for await (const agent of client.agents.all()) all.push(agent);
    return all;
  };
  // Ends with the shell (sign out): its listeners, and the view shown with everything it keeps open.
  const shellAlive = new AbortController();
  let viewAlive = new AbortController();
  const context: Omit<ConsoleContext, "leaving"> = {
    client,
    navigate(hash) {
      if (location.hash === hash) void render();
      else location.hash = hash;
    },
    agents(fresh = false) {
      if (fresh || !agents) {
        const reading = readAgents();
        agents = reading;
        // A failed read is not kept: the next view asks again.
        reading.catch(() => {
          if (agents === reading) agents = undefined;
        });
      }
      return agents;
    },
  };
  const nav = h("nav", { class: "console-nav", "aria-label": "Console" });
  const main = h("main", { class: "console-main", id: "console-main", tabindex: -1 });
  app.replaceChildren(
    h(
      "div",
      { class: "console-layout" },
      h(
        "header",
        { class: "top" },
        h("span", { class: "brand" }, "Switchboard ", h("span", { class: "brand-sub" }, "console")),
        h("span", { class: "me" }, "Signed in with the secret key"),
        h("a", { href: "/", class: "link" }, "Live page"),
        h("a", { href: "/reference/", class: "link" }, "API"),
        h(
          "button",
          {
            type: "button",
            class: "link",
            id: "sign-out",
            onclick: () => {
              viewAlive.abort();
              shellAlive.abort();
              clearOperatorKey();
              history.replaceState(null, "", "/console");
              signInView();
            },
          },
          "Sign out",
        ),
      ),
      nav,
      main,
    ),
  );

  // A link to the view already shown reads it again (the fragment did not change, so no hashchange comes).
  app.addEventListener(
    "click",
    (event) => {
      const link = event.target instanceof Element ? event.target.closest("a[href^='#']") : null;
      if (link && link.getAttribute("href") === location.hash) {
        event.preventDefault();
        void render();
      }
    },
    { signal: shellAlive.signal },
  );

  let drawing = 0;
  async function render(): Promise<void> {
    const [section, first, second] = (location.hash.slice(1) || "agents").split("/").map(decodeURIComponent);
    if (first && (section === "runs" || section === "pending" || section === "stats" || (section === "agents" && first !== "new"))) lastAgentId = first;
    nav.replaceChildren(
      ...sections.map((entry) => {
        const href = entry.perAgent && lastAgentId ? `#${entry.id}/${lastAgentId}` : `#${entry.id}`;
        const current = entry.id === section || (entry.id === "runs" && section === "run");
        return h("a", { href, class: "nav-link", "data-section": entry.id, ...(current && { "aria-current": "page" }) }, entry.title);
      }),
    );
    const ticket = ++drawing;
    // The view shown (or still being drawn) is left: its streams close.
    viewAlive.abort();
    viewAlive = new AbortController();
    const leaving = viewAlive.signal;
    main.dataset.ready = "false";
    main.replaceChildren(h("p", { class: "loading" }, "Loading…"));
    let view: HTMLElement;
    try {
      view = await viewFor({ ...context, leaving }, section, first, second);
    } catch (error) {
      view = problemLine(`Could not show this view: ${errorText(error)}`);
    }
    // A later navigation wins over a slower earlier one.
    if (ticket !== drawing) return;
    main.replaceChildren(view);
    main.dataset.view = section;
    main.dataset.ready = "true";
    // How many views were drawn: a test (or a person's script) can wait for the next one.
    main.dataset.drawn = String(ticket);
  }
  window.addEventListener("hashchange", () => void render(), { signal: shellAlive.signal });
  void render();
}

function viewFor(context: ConsoleContext, section: string, first: string | undefined, second: string | undefined): Promise<HTMLElement> {
  switch (section) {
    case "agents":
      if (first === "new") return agentEditorView(context, { templateId: second ?? "scripted" });
      return first ? agentEditorView(context, { agentId: first }) : agentsView(context);
    case "runs":
      return runsView(context, first, second ? Number(second) || 20 : 20);
    case "run":
      return first ? runView(context, first) : runsView(context, undefined);
    case "pending":
      return pendingCallsView(context, first, second);
    case "webhooks":
      return webhooksView(context);
    case "stats":
      return toolStatsView(context, first);
    case "connections":
      return connectionsView(context, first);
    default:
      return Promise.resolve(problemLine(`No view "${section}" here: choose one above.`));
  }
}

const stored = readOperatorKey();
if (stored) void start(stored);
else signInView();
