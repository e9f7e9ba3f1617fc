/**
 * The console's agents: every agent with its model and links to its runs,
 * pending calls and tool statistics; a new agent from a template (opened in
 * the editor, created when saved); an agent imported from an exported
 * document (checked whole by the gateway before anything is written).
 */
import { type AgentDocumentInput, SwitchboardError } from "../../../client/src/index";
import { h } from "../dom";
import { agentTemplates } from "./agent-templates";
import { type ConsoleContext, errorText, formatTime, problemLine, viewHeader } from "./console-context";
import { problemsOf } from "./config-editor";
import { locateJson } from "./json-locations";

export async function agentsView(context: ConsoleContext): Promise<HTMLElement> {
  const problem = h("div", { class: "problems", role: "alert" });
  const rows = h("tbody", {});
  const table = h(
    "table",
    { class: "list", id: "agents-table" },
    h("thead", {}, h("tr", {}, h("th", {}, "Agent"), h("th", {}, "Model"), h("th", {}, "Updated"), h("th", {}, ""))),
    rows,
  );
  try {
    const agents = await context.agents(true);
    rows.replaceChildren(
      ...(agents.length === 0
        ? [h("tr", {}, h("td", { colspan: 4, class: "empty" }, "No agents yet: start one from a template below."))]
        : agents.map((agent) =>
            h(
              "tr",
              { "data-agent-id": agent.id },
              h("td", {}, h("a", { href: `#agents/${agent.id}`, class: "agent-name" }, agent.name), h("small", { class: "id" }, agent.id)),
              h("td", {}, h("code", {}, agent.model.provider), agent.model.name ? ` ${agent.model.name}` : ""),
              h("td", {}, formatTime(agent.updatedAt)),
              h(
                "td",
                { class: "row-links" },
                h("a", { href: `#runs/${agent.id}` }, "Runs"),
                h("a", { href: `#pending/${agent.id}` }, "Pending calls"),
                h("a", { href: `#stats/${agent.id}` }, "Tool stats"),
              ),
            ),
          )),
    );
  } catch (error) {
    problem.textContent = `Could not list the agents: ${errorText(error)}`;
  }
  return h(
    "section",
    { class: "view agents-view" },
    viewHeader("Agents", h("a", { href: "#agents", class: "link", id: "refresh-agents" }, "Refresh")),
    problem,
    table,
    h("div", { class: "panels" }, templatePanel(context), importPanel(context)),
  );
}

function templatePanel(context: ConsoleContext): HTMLElement {
  const template = h("select", { id: "template", name: "template" }, ...agentTemplates.map((entry) => h("option", { value: entry.id }, entry.title)));
  const hint = h("p", { class: "hint" });
  const showHint = () => (hint.textContent = agentTemplates.find((entry) => entry.id === template.value)?.hint ?? "");
  template.addEventListener("change", showHint);
  showHint();
  return h(
    "form",
    {
      class: "panel",
      id: "new-agent",
      onsubmit: (event: Event) => {
        event.preventDefault();
        context.navigate(`#agents/new/${template.value}`);
      },
    },
    h("h2", {}, "New agent"),
    h("label", { class: "field" }, h("span", {}, "Template"), template),
    hint,
    h("button", { type: "submit", class: "primary" }, "Open in the editor"),
  );
}

function importPanel(context: ConsoleContext): HTMLElement {
  const file = h("input", { type: "file", id: "import-file", accept: "application/json,.json" });
  const rename = h("input", { id: "import-name", autocomplete: "off", placeholder: "(the document's name)" });
  const outcome = h("div", { class: "import-outcome", role: "status" });
  return h(
    "form",
    {
      class: "panel",
      id: "import-agent",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        outcome.replaceChildren();
        const chosen = file.files?.[0];
        if (!chosen) {
          outcome.append(problemLine("Choose a document (a file Export saved)."));
          return;
        }
        const located = locateJson(await chosen.text());
        if (!located.ok) {
          outcome.append(problemLine(`${chosen.name} is not JSON: ${located.message} (line ${located.line}, column ${located.column})`));
          return;
        }
        try {
          // Sent as uploaded: the gateway checks the whole document, and its 400 names each problem's path.
          const imported = await context.client.importAgent(located.value as AgentDocumentInput, rename.value.trim() ? { name: rename.value.trim() } : {});
          await context.agents(true);
          context.navigate(`#agents/${imported.id}`);
        } catch (error) {
          const details = error instanceof SwitchboardError ? problemsOf(error.details, "") : [];
          outcome.append(problemLine(`Not imported: ${errorText(error)}`));
          if (details.length > 0)
            outcome.append(h("ul", { class: "editor-problems" }, ...details.map((detail) => h("li", {}, h("code", {}, detail.path), h("span", {}, detail.message)))));
        }
      },
    },
    h("h2", {}, "Import an agent"),
    h("p", { class: "hint" }, "A document from Export (here or on another gateway): config, goals, memories, plans and notes. It becomes a new agent."),
    h("label", { class: "field" }, h("span", {}, "Document"), file),
    h("label", { class: "field" }, h("span", {}, "Name (optional)"), rename),
    h("button", { type: "submit", class: "primary" }, "Import"),
    outcome,
  );
}
