import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createNotesTools, listNotes, notesIndex, summaryOf } from "../../../src/tools/builtins/notes-tools";
import { describeBuiltins } from "../../../src/tools/builtins/describe-builtins";
import { callTool, errorOf, okValue, toolContext } from "../../support/catalogue";

async function keysUnder(prefix: string): Promise<string[]> {
  return (await env.FILES.list({ prefix })).objects.map((object) => object.key);
}

describe("notes: an agent's markdown documents in R2", () => {
  it("write, read with line ranges, append, list with summaries, delete", async () => {
    const context = toolContext();
    const notes = createNotesTools(context);
    const prefix = `agents/${context.agent.agentId}/notes/`;

    expect(okValue(await callTool(notes, "notes_write", { path: "people/ada.md", content: "# Ada\n\nWorks on engines.\nLikes tea.", summary: "Who Ada is" }))).toMatchObject({
      path: "people/ada.md",
      summary: "Who Ada is",
      created: true,
    });
    expect(await keysUnder(prefix)).toEqual([`${prefix}people/ada.md`]);

    const whole = okValue<{ content: string; totalLines: number }>(await callTool(notes, "notes_read", { path: "people/ada.md" }));
    expect(whole.content).toBe("# Ada\n\n> Summary: Who Ada is\n\nWorks on engines.\nLikes tea.");
    expect(whole.totalLines).toBe(6);
    expect(okValue(await callTool(notes, "notes_read", { path: "people/ada.md", fromLine: 5, toLine: 6 }))).toMatchObject({
      content: "Works on engines.\nLikes tea.",
      fromLine: 5,
      toLine: 6,
    });
    expect(errorOf(await callTool(notes, "notes_read", { path: "people/ada.md", fromLine: 40 }))).toContain("past its end");

    okValue(await callTool(notes, "notes_append", { path: "people/ada.md", entry: "- 2026-11-20: asked about R2", summary: "Who Ada is and what she asked" }));
    const appended = okValue<{ content: string }>(await callTool(notes, "notes_read", { path: "people/ada.md" }));
    expect(appended.content).toContain("> Summary: Who Ada is and what she asked");
    expect(appended.content.endsWith("Likes tea.\n- 2026-11-20: asked about R2\n")).toBe(true);

    okValue(await callTool(notes, "notes_append", { path: "log.md", entry: "first entry" }));
    const listed = okValue<{ notes: { path: string; summary: string }[] }>(await callTool(notes, "notes_list", {}));
    expect(listed.notes.map((note) => [note.path, note.summary]).sort()).toEqual([
      ["log.md", "first entry"],
      ["people/ada.md", "Who Ada is and what she asked"],
    ]);

    expect(okValue(await callTool(notes, "notes_delete", { path: "log.md" }))).toEqual({ path: "log.md", deleted: true });
    expect(okValue(await callTool(notes, "notes_delete", { path: "log.md" }))).toEqual({ path: "log.md", deleted: false });
    expect(errorOf(await callTool(notes, "notes_read", { path: "log.md" }))).toContain('no note "log.md"');
  });

  it("patch replaces a passage only when it occurs exactly once, and changes nothing otherwise", async () => {
    const notes = createNotesTools(toolContext());
    okValue(await callTool(notes, "notes_write", { path: "todo.md", content: "- [ ] ship\n- [ ] test\n- [ ] ship docs\n" }));
    expect(errorOf(await callTool(notes, "notes_patch", { path: "todo.md", oldText: "- [ ] ship", newText: "- [x] ship" }))).toContain("occurs 2 times");
    expect(errorOf(await callTool(notes, "notes_patch", { path: "todo.md", oldText: "- [ ] deploy", newText: "x" }))).toContain("not found");
    expect(errorOf(await callTool(notes, "notes_patch", { path: "nothing.md", oldText: "a", newText: "b" }))).toContain("no note");
    expect(okValue<{ content: string }>(await callTool(notes, "notes_read", { path: "todo.md" })).content).toBe("- [ ] ship\n- [ ] test\n- [ ] ship docs\n");
    okValue(await callTool(notes, "notes_patch", { path: "todo.md", oldText: "- [ ] ship\n", newText: "- [x] ship\n" }));
    expect(okValue<{ content: string }>(await callTool(notes, "notes_read", { path: "todo.md" })).content).toBe("- [x] ship\n- [ ] test\n- [ ] ship docs\n");
    // The catalogue's memory_patch names: old_str and new_str; not mixed with oldText and newText.
    okValue(await callTool(notes, "notes_patch", { path: "todo.md", old_str: "- [ ] test", new_str: "- [x] test" }));
    expect(errorOf(await callTool(notes, "notes_patch", { path: "todo.md", oldText: "a", old_str: "a", newText: "b" }))).toContain("not both");
    expect(errorOf(await callTool(notes, "notes_patch", { path: "todo.md", old_str: "a" }))).toContain("old_str and new_str");
    expect(okValue<{ content: string }>(await callTool(notes, "notes_read", { path: "todo.md" })).content).toBe("- [x] ship\n- [x] test\n- [ ] ship docs\n");
  });

  it("a call done again after a restart (same call id) appends or patches once", async () => {
    const notes = createNotesTools(toolContext());
    okValue(await callTool(notes, "notes_write", { path: "count.md", content: "n = 1\n" }));
    okValue(await callTool(notes, "notes_append", { path: "count.md", entry: "again" }, "model-call-1"));
    okValue(await callTool(notes, "notes_append", { path: "count.md", entry: "again" }, "model-call-1"));
    okValue(await callTool(notes, "notes_patch", { path: "count.md", oldText: "n = 1", newText: "n = 2" }, "model-call-2"));
    okValue(await callTool(notes, "notes_patch", { path: "count.md", oldText: "n = 1", newText: "n = 2" }, "model-call-2"));
    expect(okValue<{ content: string }>(await callTool(notes, "notes_read", { path: "count.md" })).content).toBe("n = 2\nagain\n");
  });

  it("parallel appends to one note all land (serialised per key, written on the etag they read)", async () => {
    const notes = createNotesTools(toolContext());
    await Promise.all(Array.from({ length: 8 }, (_, index) => callTool(notes, "notes_append", { path: "busy.md", entry: `entry ${index}` })));
    const content = okValue<{ content: string }>(await callTool(notes, "notes_read", { path: "busy.md" })).content;
    expect(content.trim().split("\n").sort()).toEqual(Array.from({ length: 8 }, (_, index) => `entry ${index}`));
  });

  it.each(["../other/notes/x.md", "../../files/reports/x.md", "/agents/x/notes/a.md", "%2e%2e/x.md", "a/../../b.md", "a\\b.md", "a//b.md", "\uff0e\uff0e/x.md"])(
    "a path that would leave the agent's folder (%j) is refused and writes nothing",
    async (path) => {
      const context = toolContext();
      const notes = createNotesTools(context);
      expect(errorOf(await callTool(notes, "notes_write", { path, content: "x" }))).toContain("Invalid path");
      expect(errorOf(await callTool(notes, "notes_append", { path, entry: "x" }))).toContain("Invalid path");
      expect(errorOf(await callTool(notes, "notes_read", { path }))).toContain("Invalid path");
      expect(errorOf(await callTool(notes, "notes_delete", { path }))).toContain("Invalid path");
      expect(await keysUnder(`agents/${context.agent.agentId}`)).toEqual([]);
    },
  );

  it("agents never see each other's notes", async () => {
    const first = createNotesTools(toolContext());
    const secondContext = toolContext();
    const second = createNotesTools(secondContext);
    okValue(await callTool(first, "notes_write", { path: "secret.md", content: "mine" }));
    expect(errorOf(await callTool(second, "notes_read", { path: "secret.md" }))).toContain("no note");
    expect((await listNotes(env.FILES, secondContext.agent.agentId)).notes).toEqual([]);
  });

  it("the index the system prompt shows lists each note with its one-line summary", async () => {
    const context = toolContext({ config: { builtins: ["notes"] } });
    const notes = createNotesTools(context);
    okValue(await callTool(notes, "notes_write", { path: "facts.md", content: "# Facts about the project\n\nIt runs on Workers." }));
    okValue(await callTool(notes, "notes_write", { path: "people/pat.md", content: "Pat likes short answers.", summary: "How to talk to Pat" }));
    const index = await notesIndex(env.FILES, context.agent.agentId);
    expect(index).toHaveLength(2);
    expect(index.join("\n")).toContain("- facts.md: Facts about the project (");
    expect(index.join("\n")).toContain("- people/pat.md: How to talk to Pat (");
    const described = await describeBuiltins(context);
    const section = described.sections.find((text) => text.startsWith("## Your notes"));
    expect(section).toContain("people/pat.md: How to talk to Pat");
    expect(described.sections.some((text) => text.startsWith("## Time"))).toBe(false);
  });

  it("a summary is the > Summary: line, else the first line of text", () => {
    expect(summaryOf("# Title\n\n> Summary: the gist\n\nbody")).toBe("the gist");
    expect(summaryOf("\n\n## Heading here\nbody")).toBe("Heading here");
    expect(summaryOf("")).toBe("");
    expect(summaryOf("x".repeat(500)).length).toBe(200);
  });
});
