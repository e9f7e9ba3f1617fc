/**
 * What the system prompt says about the built-ins an agent has: which groups
 * it has (the prompt leaves out spaces, goals and the rest when the agent
 * lacks their tools), and a short section per catalogue group, naming only
 * the tools it kept. The notes section carries the index of the agent's
 * notes (one line each), read from R2 once per cycle.
 */
import type { PlatformAccess, RunIdentity, SettingsAccess } from "../engine/tool-context";
import { type BuiltinGroup, builtinGroups, selectedBuiltinGroups, selectedBuiltinNames } from "../config/builtin-tool-names";
import { reflectionToolNames } from "./create-builtin-tools";
import { notesIndex } from "./notes-tools";
import { maxSleepSeconds } from "./time-tools";

export type BuiltinDescription = { groups: Set<BuiltinGroup>; names: Set<string>; sections: string[] };

const section = (title: string, lines: string[]) => `## ${title}\n${lines.join("\n")}`;

export async function describeBuiltins(context: RunIdentity & PlatformAccess & SettingsAccess): Promise<BuiltinDescription> {
  const names: Set<string> = context.reflection
    ? new Set([...reflectionToolNames].filter((name) => !context.config.deniedTools?.includes(name)))
    : selectedBuiltinNames(context.config);
  const groups = context.reflection ? new Set<BuiltinGroup>(["notes"]) : selectedBuiltinGroups(context.config);
  const kept = (group: BuiltinGroup) => builtinGroups[group].filter((name) => names.has(name));
  const list = (group: BuiltinGroup) => kept(group).join(", ");
  const sections: string[] = [];

  if (kept("time").length > 0) {
    sections.push(
      section("Time", [
        `Your time tools: ${list("time")}. Dates are ISO 8601; time zones are IANA names (default UTC).`,
        ...(names.has("sleep") ? [`sleep ends this cycle at once; after the delay (at most ${maxSleepSeconds} s) a tool_result event for that sleep call wakes you.`] : []),
      ]),
    );
  }
  if (kept("http").length > 0) {
    sections.push(section("The web", [`Your web tools: ${list("http")}. They reach public http(s) URLs; answers are cut at your tool response limit.`]));
  }
  if (kept("search").length > 0) {
    sections.push(section("Searching the web", ["web_search finds pages for a query (title, url, the matching text); read one whole with fetch_page if you have it."]));
  }
  if (kept("data").length > 0) {
    sections.push(section("Data", [`Your data tools: ${list("data")} (json_query speaks JMESPath).`]));
  }
  // The memory group is the notes tools under the catalogue's names: the same section, both names listed.
  const notesTools = [...kept("notes"), ...kept("memory")].join(", ");
  if (notesTools !== "") {
    let index: string[];
    try {
      index = await notesIndex(context.env.FILES, context.agent.agentId);
    } catch (error) {
      console.error("could not list notes", context.agent.agentId, error);
      index = ["(the index could not be read this cycle)"];
    }
    sections.push(
      section("Your notes", [
        `Markdown documents only you can read and write, kept across cycles. Tools: ${notesTools}. notes_patch (memory_patch) replaces a passage that occurs exactly once. A "> Summary:" line (or the first line) is each note's summary below.`,
        ...(index.length > 0 ? index : ["(no notes yet)"]),
      ]),
    );
  }
  if (kept("files").length > 0) {
    const files = context.config.files;
    sections.push(
      section("Files", [
        `Shared files in your folders: ${(files?.prefixes ?? []).map((prefix) => `${prefix.replace(/\/$/, "")}/`).join(", ")}${files?.readOnly ? " (read-only)" : ""}. Tools: ${list("files")}. Paths are relative, such as "${(files?.prefixes[0] ?? "folder").replace(/\/$/, "")}/report.md".`,
        ...(names.has("share_file") ? ["share_file gives a signed link the members of a space can download a file with."] : []),
      ]),
    );
  }
  if (kept("reports").length > 0) {
    sections.push(
      section("Reporting", [
        ...(names.has("final_report") ? ["final_report delivers your answer for this cycle (kept on its run record, posted to your active space) and ends the cycle."] : []),
        ...(names.has("task_status") ? ["task_status shows your progress as a live card in your active space."] : []),
        ...(names.has("batch") ? ["batch runs several independent tool calls in one, each with its own result."] : []),
      ]),
    );
  }
  if (kept("images").length > 0) {
    sections.push(section("Images", ["generate_image draws a picture from a prompt and shows it in your active space."]));
  }
  if (kept("env").length > 0) {
    sections.push(section("Your variables", [`${list("env")} keep short strings by name across cycles; they are yours alone, not the gateway's environment.`]));
  }
  if (kept("tasks").length > 0) {
    sections.push(section("Your past cycles", [`${list("tasks")} read your own earlier runs: task_list gives their ids (taskId) by day.`]));
  }
  return { groups, names, sections };
}
