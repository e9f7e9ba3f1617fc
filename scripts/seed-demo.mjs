/**
 * Seeds the local demo (idempotently): a demo person, a demo space and a demo
 * agent on the `scripted` provider that greets, answers, and asks the person
 * to fill in a `space` tool's form before it carries on.
 * Called by `npm run dev` once the gateway answers; also runnable by hand:
 *   node scripts/seed-demo.mjs http://localhost:8787
 * The ids are kept in .wrangler/state/switchboard-demo.json (next to the local
 * D1 data, so wiping one wipes both); if any of them is gone, all are made anew.
 * Prints the live page's sign-in link for the demo person, and CLI commands.
 */
import { createHmac } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseDotenv } from "./parse-dotenv.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const defaultStateDir = join(root, ".wrangler", "state");

/** The `space` tool the demo agent asks the person with: the page draws a form from `resultSchema`. */
export const feedbackTool = {
  name: "ask_feedback",
  description: "Ask the person in the space for quick feedback",
  executionType: "space",
  // Sync: the cycle waits (up to 15 minutes) and carries on the moment the answer is posted.
  timeout: 15 * 60 * 1000,
  inputSchema: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
  resultSchema: {
    type: "object",
    properties: {
      rating: { type: "integer", title: "How useful is Switchboard so far? (1–5)", minimum: 1, maximum: 5 },
      favourite: { type: "string", title: "What did you like most?", enum: ["Streaming text", "Tool cards", "The CLI", "Nothing yet"] },
      comment: { type: "string", title: "Anything else?", maxLength: 500 },
    },
    required: ["rating", "favourite"],
  },
};

export const demoTexts = {
  greeting: "Hello! I'm the Switchboard demo agent. Say something in this space and I'll answer.",
  ask: "Nice to meet you! Let me ask you something. The card below is a space tool: a question only a person can answer, with a form drawn from its result schema. Fill it in and I'll carry on.",
  thanks:
    "Thank you! Your answer (or your no) came straight back to me as the tool's result, in the same cycle: no polling. Say form to get the form again, or ask me anything else.",
};

/** What the person says to be asked with the form again (a jump of the script back to its question). */
export const formWord = "form";

/** What the person says to have the agent use their Demo notes account (a jump to the turn that calls it). */
export const notesWord = "notes";

export const notesTexts = {
  ask: "Let me look you up in Demo notes. Its tools act as you, so the card below asks you to connect your account first (any name and password will do on its sign-in page); I carry on the moment you have.",
  done: "Done: the card shows what Demo notes says about you, with your own account. Say notes again and I use it straight away, no card.",
};

/** The demo agent's MCP server that acts as the person: Demo notes (scripts/demo-accounts.mjs), found at `notesUrl`. */
export function demoNotesServer(notesUrl) {
  return {
    name: "notes",
    url: notesUrl,
    auth: {
      type: "oauth",
      owner: "person",
      service: "Demo notes",
      tools: [{ name: "whoami", description: "Says which Demo notes account the call acts for" }],
    },
  };
}

export const demoReplies = [
  "Hi again! I'm a scripted agent: my turns are written in my config, so I run with no model key and no internet.",
  "Everything you see here streamed: my text arrives as space.message.streaming deltas, then one persisted space.message.",
  "Try GET /api/agents/<my id>/runs to see each of my cycles: trigger, steps, tool calls and token usage.",
  "Want a real brain? PUT /api/agents/<my id> with model.provider set to openai, anthropic, openai-compatible or workers-ai.",
  "I remember things with set_memories and schedule myself with set_plans (both in D1), and I keep markdown notes in R2: I noted each visit in visits.md.",
  "Open /openapi.json for the whole API.",
  "Spaces hand every event a gap-free seq: reconnect with ?afterSeq=N and nothing is lost.",
  "That's most of my script. Say form for the form again, or reset me with PUT /api/agents/<my id> (same config) and I start over.",
];

function readDevVars() {
  const path = join(root, ".dev.vars");
  if (!existsSync(path)) return {};
  return parseDotenv(readFileSync(path, "utf8"));
}

function base64url(value) {
  return Buffer.from(value).toString("base64url");
}

/** An HS256 JWT for the demo person (valid 7 days), for browser/WebSocket clients. */
export function signToken(subject, secret, seconds = 7 * 24 * 3600) {
  const now = Math.floor(Date.now() / 1000);
  const header = base64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const payload = base64url(JSON.stringify({ sub: subject, iat: now, exp: now + seconds }));
  const signature = createHmac("sha256", secret).update(`${header}.${payload}`).digest("base64url");
  return `${header}.${payload}.${signature}`;
}

export function demoAgentConfig(spaceId, accounts = undefined) {
  // Every turn checks the time and notes the visit (the time and notes built-ins), then answers.
  const turn = (text) => ({
    toolCalls: [
      { name: "enter_space", args: { spaceId } },
      { name: "current_time", args: { timezone: "UTC" } },
      { name: "notes_append", args: { path: "visits.md", entry: "- Someone spoke in the demo space; I answered.", summary: "Visits to the demo space" } },
      { name: "send_message", args: { text } },
      { name: "skip", args: {} },
    ],
  });
  return {
    version: "1.0",
    agent: { name: "Demo agent", description: "Greets, answers and asks for feedback in the demo space", system: "You are the Switchboard demo agent." },
    model: {
      provider: "scripted",
      turns: [
        turn(demoTexts.greeting),
        {
          toolCalls: [
            { name: "enter_space", args: { spaceId } },
            { name: "send_message", args: { text: demoTexts.ask } },
            { name: "ask_feedback", args: { question: "How is the demo going?" } },
          ],
        },
        {
          toolCalls: [
            { name: "send_message", args: { text: demoTexts.thanks } },
            { name: "skip", args: {} },
          ],
        },
        ...demoReplies.map(turn),
        ...(accounts
          ? [
              {
                toolCalls: [
                  { name: "enter_space", args: { spaceId } },
                  { name: "send_message", args: { text: notesTexts.ask } },
                  { name: "notes__whoami", args: {} },
                ],
              },
              {
                toolCalls: [
                  { name: "send_message", args: { text: notesTexts.done } },
                  { name: "skip", args: {} },
                ],
              },
            ]
          : []),
      ],
      // Whenever the person says "form", the next cycle plays the question again (turn 1), then the thanks, then the script goes on;
      // "notes" plays the turn that uses their Demo notes account.
      jumps: [{ whenMessageSays: formWord, toTurn: 1 }, ...(accounts ? [{ whenMessageSays: notesWord, toTurn: 3 + demoReplies.length }] : [])],
    },
    loop: { maxSteps: 4, toolChoice: "auto" },
    tools: [feedbackTool],
    ...(accounts && { mcp: { servers: [demoNotesServer(accounts.notesUrl)] } }),
    builtins: ["spaces", "knowledge", "calls", "time", "notes"],
  };
}

export default async function seedDemo({ baseUrl, secretKey, stateDir = defaultStateDir, vars = readDevVars(), accounts = undefined }) {
  const statePath = join(stateDir, "switchboard-demo.json");
  const headers = { "content-type": "application/json", "x-secret-key": secretKey };
  const api = async (method, path, body) => {
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };

  let state = existsSync(statePath) ? JSON.parse(readFileSync(statePath, "utf8")) : undefined;
  if (state) {
    const [person, space, agent] = await Promise.all([
      api("GET", `/api/entities/${state.personId}`),
      api("GET", `/api/spaces/${state.spaceId}`),
      api("GET", `/api/agents/${state.agentId}`),
    ]);
    if (person.status !== 200 || space.status !== 200 || agent.status !== 200) state = undefined;
    else {
      // A demo agent from an older version (scripted, without the feedback tool, or deaf to "form") gets today's script;
      // an agent someone switched to a real model is left alone.
      const config = agent.body.config;
      // Demo notes listens on a new port at each start: the agent is pointed at this one.
      const notesUrl = (config?.mcp?.servers ?? []).find((server) => server.name === "notes")?.url;
      const scriptCurrent = (config?.model?.jumps ?? []).some((jump) => jump.whenMessageSays === formWord) && (config?.tools ?? []).some((tool) => tool.name === feedbackTool.name);
      if (config?.model?.provider === "scripted" && (!scriptCurrent || notesUrl !== accounts?.notesUrl)) {
        const updated = await api("PUT", `/api/agents/${state.agentId}`, { config: demoAgentConfig(state.spaceId, accounts) });
        if (updated.status !== 200) console.warn(`[demo] Could not update the demo agent: ${updated.status} ${JSON.stringify(updated.body)}`);
        else if (!scriptCurrent) console.log(`[demo] Updated the demo agent to the current script (say ${formWord} and it asks for feedback again).`);
      }
    }
  }

  if (!state) {
    const person = await api("POST", "/api/entities", { type: "human", name: "Demo person" });
    if (person.status !== 201) throw new Error(`creating the demo person: ${person.status} ${JSON.stringify(person.body)}`);
    const space = await api("POST", "/api/spaces", { name: "Demo space", memberIds: [person.body.id] });
    if (space.status !== 201) throw new Error(`creating the demo space: ${space.status} ${JSON.stringify(space.body)}`);
    const agent = await api("POST", "/api/agents", { config: demoAgentConfig(space.body.id, accounts) });
    if (agent.status !== 201) throw new Error(`creating the demo agent: ${agent.status} ${JSON.stringify(agent.body)}`);
    await api("POST", `/api/spaces/${space.body.id}/members`, { entityId: agent.body.entityId });
    // Wake the agent once so it greets the space.
    await api("POST", `/api/agents/${agent.body.id}/inbox`, { type: "external", data: { event: "demo_started" } });
    state = { personId: person.body.id, spaceId: space.body.id, agentId: agent.body.id, agentEntityId: agent.body.entityId };
    mkdirSync(dirname(statePath), { recursive: true });
    writeFileSync(statePath, `${JSON.stringify(state, null, 2)}\n`);
    console.log("[demo] Created the demo person, space and agent.");
  } else {
    console.log("[demo] The demo person, space and agent already exist.");
  }

  const token = vars.JWT_SECRET ? signToken(state.personId, vars.JWT_SECRET) : undefined;
  console.log(`[demo] person ${state.personId} · space ${state.spaceId} · agent ${state.agentId} (entity ${state.agentEntityId})`);
  if (token && vars.GATEWAY_PUBLIC_KEY) {
    const link = `${baseUrl}/#${new URLSearchParams({ publicKey: vars.GATEWAY_PUBLIC_KEY, token })}`;
    console.log(`
┌ Open the demo space in your browser, signed in as the demo person (valid 7 days):
│ ${link}
│
│ In another terminal (npx switchboard help for more):
│   npx switchboard watch                 # the space live, as the page shows it
│   npx switchboard say "Hello agent!"    # talk as the demo person
│   npx switchboard answer                # calls waiting for an answer${accounts ? "\n│   npx switchboard say notes            # the agent uses your Demo notes account (a card asks you to connect it)" : ""}
│   npx switchboard runs                  # the demo agent's runs, with errors
└`);
  }
  return state;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const baseUrl = process.argv[2] ?? "http://localhost:8787";
  const secretKey = process.env.GATEWAY_SECRET_KEY ?? readDevVars().GATEWAY_SECRET_KEY;
  if (!secretKey) throw new Error("Set GATEWAY_SECRET_KEY or create .dev.vars (npm run dev does)");
  await seedDemo({ baseUrl, secretKey });
}
