/**
 * One agent's config in the console's editor: the JSON the gateway stores
 * (defaults filled in) or a template's, the forms that write the model, a
 * tool or an MCP server into it, and Save (`PUT`, or `POST` for a new
 * agent). What the gateway refuses stays in the editor, each problem at the
 * line its path names. Export downloads the agent as a portable document.
 */
import { type AgentConfigInput, SwitchboardError } from "../../../client/src/index";
import { h } from "../dom";
import { templateById } from "./agent-templates";
import { ConfigEditor, problemsOf } from "./config-editor";
import { mcpServerForm, modelForm, toolForm } from "./config-forms";
import { type ConsoleContext, errorText, formatTime, problemLine, viewHeader } from "./console-context";

type Target = { agentId: string } | { templateId: string };

export async function agentEditorView(context: ConsoleContext, target: Target): Promise<HTMLElement> {
  const isNew = "templateId" in target;
  let title: string;
  let text: string;
  let updatedAt: string | undefined;
  let hint: string | undefined;
  if (isNew) {
    const template = templateById(target.templateId);
    if (!template) return h("section", { class: "view" }, viewHeader("New agent"), problemLine(`No template "${target.templateId}".`));
    title = `New agent: ${template.title}`;
    hint = template.hint;
    text = JSON.stringify(template.config(`${template.title.split(" (")[0]} agent`), null, 2);
  } else {
    try {
      const agent = await context.client.agents.get(target.agentId);
      title = agent.name;
      text = JSON.stringify(agent.config, null, 2);
      updatedAt = agent.updatedAt;
    } catch (error) {
      return h("section", { class: "view" }, viewHeader("Agent"), problemLine(`Could not read the agent: ${errorText(error)}`));
    }
  }

  const editor = new ConfigEditor(text, "Agent config (JSON)");
  const status = h("div", { class: "save-status", id: "save-status", role: "status" }, updatedAt ? `Saved ${formatTime(updatedAt)}` : "Not saved yet");
  const problem = h("div", { class: "problems", role: "alert" });
  const save = h("button", { type: "button", class: "primary", id: "save-agent" }, isNew ? "Create agent" : "Save");
  save.addEventListener("click", async () => {
    problem.textContent = "";
    const config = editor.read();
    if (config === undefined) {
      problem.textContent = "Not saved: the text is not JSON (the error is shown at its line).";
      return;
    }
    save.disabled = true;
    status.textContent = "Saving…";
    try {
      // Sent as written: the gateway checks the whole config, and its 400 names each problem's path.
      const written = config as AgentConfigInput;
      if ("templateId" in target) {
        const created = await context.client.agents.create(written);
        await context.agents(true);
        context.navigate(`#agents/${created.id}`);
        return;
      }
      const saved = await context.client.agents.update(target.agentId, written);
      editor.clearProblems();
      editor.text = JSON.stringify(saved.config, null, 2);
      status.textContent = `Saved ${formatTime(saved.updatedAt)}`;
      void context.agents(true);
    } catch (error) {
      status.textContent = "Not saved";
      if (error instanceof SwitchboardError && error.code === "validation_error") {
        const problems = problemsOf(error.details, "config");
        editor.showProblems(problems);
        problem.textContent = `Not saved: ${problems.length === 1 ? "one problem" : `${problems.length} problems`}, shown at ${problems.length === 1 ? "its line" : "their lines"}.`;
      } else problem.textContent = `Not saved: ${errorText(error)}`;
    } finally {
      save.disabled = false;
    }
  });

  const actions: HTMLElement[] = [save];
  if ("agentId" in target) {
    const exportOutcome = h("span", { class: "form-outcome", role: "status" });
    actions.push(
      h("button", { type: "button", class: "secondary", id: "export-agent", onclick: () => void exportAgent(context, target.agentId, exportOutcome) }, "Export"),
      exportOutcome,
      h("a", { href: `#runs/${target.agentId}` }, "Runs"),
      h("a", { href: `#pending/${target.agentId}` }, "Pending calls"),
      h("a", { href: `#stats/${target.agentId}` }, "Tool stats"),
    );
  }

  return h(
    "section",
    { class: "view editor-view", "data-agent-id": "agentId" in target ? target.agentId : "" },
    viewHeader(title, "agentId" in target ? h("small", { class: "id" }, target.agentId) : null),
    hint ? h("p", { class: "hint" }, hint) : null,
    h("div", { class: "toolbar" }, ...actions, status),
    problem,
    h(
      "div",
      { class: "editor-layout" },
      editor.element,
      h(
        "aside",
        { class: "config-forms" },
        modelForm(editor),
        toolForm(editor),
        mcpServerForm(editor),
        h("p", { class: "hint" }, "Every field: docs/agents.md (the config) and docs/tools.md."),
      ),
    ),
  );
}

/** Downloads the agent as its portable document (secrets by name only). */
async function exportAgent(context: ConsoleContext, agentId: string, outcome: HTMLElement): Promise<void> {
  outcome.textContent = "";
  try {
    const document_ = await context.client.exportAgent(agentId);
    const blob = new Blob([`${JSON.stringify(document_, null, 2)}\n`], { type: "application/json" });
    const url = URL.createObjectURL(blob);
    const link = h("a", { href: url, download: `${document_.agent.name.replace(/[^a-zA-Z0-9_-]+/g, "-").toLowerCase() || agentId}.agent.json` });
    document.body.append(link);
    link.click();
    link.remove();
    // The download has its own copy once it started.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    outcome.textContent = "Exported";
  } catch (error) {
    outcome.textContent = `Not exported: ${errorText(error)}`;
  }
}
