/**
 * The live space page, served by the Worker itself (`/`): sign in with a
 * token, see my spaces, watch one live (streamed text, tool cards, failed
 * runs), answer what waits for me, and post as myself. Built on the client SDK.
 */
import { Switchboard, type SwitchboardError, type LiveSpace, type Me, type SpaceMember, type SpaceTool } from "../../client/src/index";
import { connectionsList } from "./connections-list";
import { deadLettersView } from "./dead-letters-view";
import { h } from "./dom";
import { clearOperatorKey, clearSession, readOperatorKey, readSession, saveOperatorKey, saveSession, tokenExpiry, type Session } from "./session";
import { TimelineView } from "./timeline-view";

const app = document.getElementById("app") as HTMLElement;

type PageDebug = { live?: LiveSpace; client?: Switchboard };
const debug: PageDebug = {};
(globalThis as unknown as { switchboardPage: PageDebug }).switchboardPage = debug;

function signInView(problem?: string): void {
  const publicKey = h("input", { name: "publicKey", id: "publicKey", autocomplete: "off", required: true, placeholder: "pk_…" });
  const token = h("textarea", { name: "token", id: "token", rows: 4, required: true, placeholder: "eyJhbGciOiJIUzI1NiIs…" });
  app.replaceChildren(
    h(
      "main",
      { class: "sign-in" },
      h("h1", {}, "Switchboard"),
      h("p", {}, "Sign in as a person of this gateway with the public key and a JWT (HS256, sub = your entity id)."),
      h(
        "p",
        { class: "hint" },
        "Running locally? ",
        h("code", {}, "npm run dev"),
        " prints a ready link for the demo person; ",
        h("code", {}, "npx switchboard link ent_…"),
        " makes one for anyone.",
      ),
      problem ? h("div", { class: "problems", role: "alert" }, problem) : null,
      h(
        "form",
        {
          onsubmit: (event: Event) => {
            event.preventDefault();
            const session = { publicKey: publicKey.value.trim(), token: token.value.trim() };
            saveSession(session);
            void start(session);
          },
        },
        h("label", { for: "publicKey" }, "Public key (GATEWAY_PUBLIC_KEY)"),
        publicKey,
        h("label", { for: "token" }, "Token (JWT)"),
        token,
        h("button", { type: "submit", class: "primary" }, "Sign in"),
      ),
      operatorForm(),
      h("p", { class: "hint" }, h("a", { href: "/reference/" }, "API reference")),
    ),
  );
}

/** Operators sign in with the secret key (kept for this tab only) to see what the gateway could not deliver. */
function operatorForm(): HTMLElement {
  const secretKey = h("input", { type: "password", name: "secretKey", id: "secretKey", autocomplete: "off", required: true, placeholder: "sk_…" });
  return h(
    "details",
    { class: "operator-sign-in" },
    h("summary", {}, "Operator? Sign in with the secret key"),
    h(
      "form",
      {
        onsubmit: (event: Event) => {
          event.preventDefault();
          void startOperator(secretKey.value.trim());
        },
      },
      h("label", { for: "secretKey" }, "Secret key (GATEWAY_SECRET_KEY)"),
      secretKey,
      h("button", { type: "submit", class: "primary" }, "Sign in as operator"),
    ),
  );
}

async function startOperator(secretKey: string): Promise<void> {
  const client = new Switchboard({ baseUrl: location.origin, secretKey });
  debug.client = client;
  try {
    // A secret-key route: a wrong key is refused here, not later.
    await client.webhooks.deadLetters({ limit: 1 });
  } catch (error) {
    clearOperatorKey();
    signInView(`Could not sign in as operator: ${(error as Error).message}`);
    return;
  }
  saveOperatorKey(secretKey);
  app.replaceChildren(
    h(
      "div",
      { class: "layout operator-layout" },
      h(
        "header",
        { class: "top" },
        h("span", { class: "brand" }, "Switchboard"),
        h("span", { class: "me" }, "Signed in as ", h("strong", { id: "me" }, "operator"), " (secret key)"),
        h("a", { href: "/reference/", class: "link" }, "API"),
        h(
          "button",
          {
            class: "link",
            onclick: () => {
              clearOperatorKey();
              location.href = "/";
            },
          },
          "Sign out",
        ),
      ),
      h("section", { class: "space" }, deadLettersView(client)),
    ),
  );
}

async function start(session: Session, wantedSpace?: string): Promise<void> {
  const client = new Switchboard({ baseUrl: location.origin, publicKey: session.publicKey, token: session.token });
  debug.client = client;
  let me: Me;
  try {
    me = await client.me();
  } catch (error) {
    const expiry = tokenExpiry(session.token);
    const expired = expiry !== undefined && expiry * 1000 < Date.now() ? " (the token has expired: get a new link)" : "";
    clearSession();
    signInView(`Could not sign in: ${(error as Error).message}${expired}`);
    return;
  }
  shell(client, me, wantedSpace);
}

function shell(client: Switchboard, me: Me, wantedSpace?: string): void {
  const connection = h("span", { id: "connection", class: "connection", "data-status": "idle" }, "");
  const spaceList = h("ul", { class: "spaces" });
  const accountsLink = h("button", { type: "button", class: "space-link accounts-link", id: "accounts-link" }, "Connected accounts");
  const main = h("main", { class: "space" });
  const layout = h("div", { class: "layout" });
  // On a narrow screen the list of spaces folds away behind this button (wide screens always show it).
  const toggle = h("button", { type: "button", class: "sidebar-toggle", "aria-controls": "spaces-nav", "aria-expanded": "false" }, "Spaces");
  const showSpaces = (open: boolean) => {
    layout.classList.toggle("sidebar-open", open);
    toggle.setAttribute("aria-expanded", String(open));
  };
  toggle.addEventListener("click", () => {
    const open = !layout.classList.contains("sidebar-open");
    showSpaces(open);
    if (open) spaceList.querySelector<HTMLElement>("li.active .space-link, .space-link")?.focus();
  });
  layout.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !layout.classList.contains("sidebar-open")) return;
    showSpaces(false);
    toggle.focus();
  });
  layout.append(
    h(
      "header",
      { class: "top" },
      toggle,
      h("span", { class: "brand" }, "Switchboard"),
      connection,
      h(
        "span",
        { class: "me" },
        h("span", { class: "me-prefix" }, "Signed in as "),
        h("strong", { id: "me" }, me.entity.name),
        h("span", { class: "me-id" }, ` (${me.entity.id})`),
      ),
      h("a", { href: "/reference/", class: "link" }, "API"),
      h(
        "button",
        {
          class: "link",
          onclick: () => {
            clearSession();
            location.href = "/";
          },
        },
        "Sign out",
      ),
    ),
    h("nav", { class: "sidebar", id: "spaces-nav", "aria-label": "My spaces and accounts" }, h("h2", {}, "My spaces"), spaceList, h("h2", {}, "Me"), accountsLink),
    main,
  );
  app.replaceChildren(layout);
  let current: { close(): void } | undefined;
  const markActive = (spaceId: string | undefined) => {
    for (const item of spaceList.children) {
      const active = (item as HTMLElement).dataset.spaceId === spaceId;
      item.classList.toggle("active", active);
      if (active) item.querySelector("button")?.setAttribute("aria-current", "page");
      else item.querySelector("button")?.removeAttribute("aria-current");
    }
    accountsLink.classList.toggle("active", spaceId === undefined);
    if (spaceId === undefined) accountsLink.setAttribute("aria-current", "page");
    else accountsLink.removeAttribute("aria-current");
  };
  accountsLink.addEventListener("click", () => {
    current?.close();
    current = undefined;
    // No space is open, so no stream to report on (a "closed" there would read as a fault).
    connection.hidden = true;
    markActive(undefined);
    main.replaceChildren(...accountsView(client));
    showSpaces(false);
    main.querySelector<HTMLElement>("#accounts-title")?.focus();
  });
  if (me.spaces.length === 0) {
    main.replaceChildren(
      h("p", { class: "empty" }, "You are not a member of any space yet. Someone with the secret key can add you (", h("code", {}, "POST /api/spaces/:id/members"), ")."),
    );
    return;
  }
  const open = (spaceId: string) => {
    current?.close();
    connection.hidden = false;
    markActive(spaceId);
    const url = new URL(location.href);
    url.searchParams.set("space", spaceId);
    history.replaceState(null, "", url);
    current = spaceView(client, me, spaceId, main, connection);
    showSpaces(false);
  };
  for (const space of me.spaces) {
    spaceList.append(
      h("li", { "data-space-id": space.id }, h("button", { class: "space-link", onclick: () => open(space.id) }, space.name, h("small", {}, ` ${space.memberCount} members`))),
    );
  }
  open(me.spaces.some((space) => space.id === wantedSpace) ? (wantedSpace as string) : me.spaces[0].id);
}

/** The signed-in person's connected accounts, each with a Revoke button (the main area's children). */
function accountsView(client: Switchboard): HTMLElement[] {
  const { element } = connectionsList({
    client,
    whose: { kind: "mine" },
    emptyText: "No connected accounts. When an agent's tool needs one of your accounts, a card asks you to connect it.",
  });
  return [
    h("header", { class: "space-header" }, h("h1", { id: "accounts-title", tabindex: "-1" }, "Connected accounts")),
    h(
      "div",
      { class: "accounts-body" },
      h("p", { class: "hint" }, "Your accounts at other services, which agents' tools use as you. Revoking one erases its tokens here at once."),
      element,
    ),
  ];
}

function spaceView(client: Switchboard, me: Me, spaceId: string, main: HTMLElement, connection: HTMLElement): { close(): void } {
  const space = me.spaces.find((candidate) => candidate.id === spaceId);
  const members = new Map<string, SpaceMember>();
  let tools: SpaceTool[] = [];
  let revision = 0;
  const view = new TimelineView({
    me: me.entity.id,
    members,
    get tools() {
      return tools;
    },
    get revision() {
      return revision;
    },
    spaceNameOf: (id) => me.spaces.find((candidate) => candidate.id === id)?.name ?? id,
    answer: async (_message, toolCallId, result) => {
      const runId = live.state.runOf(toolCallId);
      if (!runId) throw new Error("This card does not say which run it belongs to; reload the page");
      await client.submitToolResult(runId, toolCallId, result);
    },
    decline: async (_message, toolCallId, reason) => {
      const runId = live.state.runOf(toolCallId);
      if (!runId) throw new Error("This card does not say which run it belongs to; reload the page");
      await client.submitToolError(runId, toolCallId, reason);
    },
    connectLink: (flowId) => client.accounts.connectLink(flowId),
  });
  const banner = h("div", { class: "banner", role: "status" });
  const input = h("textarea", { id: "composer", name: "text", rows: 2, placeholder: `Message ${space?.name ?? "the space"} as ${me.entity.name}…` });
  const sendProblem = h("div", { class: "problems", role: "alert" });
  const send = async () => {
    const text = input.value.trim();
    if (!text) return;
    // The composer empties at once (the message shows when the space says it arrived); a refusal puts the text back.
    input.value = "";
    input.disabled = true;
    sendProblem.textContent = "";
    try {
      await client.messages.send(spaceId, { text });
    } catch (error) {
      if (!input.value) input.value = text;
      sendProblem.textContent = `Not sent: ${(error as Error).message}`;
    } finally {
      input.disabled = false;
      // Back to the composer, unless a card that asks me took the focus in the meantime.
      if (document.activeElement === input || document.activeElement === document.body || document.activeElement === null) input.focus();
    }
  };
  // Enter sends, Shift+Enter starts a new line; Enter that ends an input method's composition (Japanese, Chinese…) does neither.
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      void send();
    }
  });
  // Focusable, so the timeline scrolls from the keyboard even when nothing in it takes the focus.
  const scroller = h("div", { class: "scroller", tabindex: "0", role: "region", "aria-label": `Timeline of ${space?.name ?? "the space"}` }, view.element, view.thinking);
  main.replaceChildren(
    h("header", { class: "space-header" }, h("h1", {}, space?.name ?? spaceId), h("small", {}, spaceId)),
    banner,
    scroller,
    h(
      "form",
      {
        class: "composer",
        onsubmit: (event: Event) => {
          event.preventDefault();
          void send();
        },
      },
      h("label", { for: "composer", class: "visually-hidden" }, `Message to ${space?.name ?? "the space"}`),
      input,
      h("button", { type: "submit", class: "primary" }, "Send"),
      sendProblem,
    ),
  );

  const refreshMembers = async () => {
    const [memberList, toolList] = await Promise.all([client.spaces.members(spaceId), client.spaces.tools(spaceId)]);
    members.clear();
    for (const member of memberList.members) members.set(member.id, member);
    tools = toolList.tools;
    revision += 1;
    render();
  };

  const live = client.openSpace(spaceId);
  debug.live = live;
  let scheduled = false;
  function render() {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      const atBottom = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 80;
      view.render(live.state);
      connection.dataset.lastSeq = String(live.state.lastSeq);
      if (atBottom) scroller.scrollTop = scroller.scrollHeight;
    });
  }
  live.on("change", (_state, event) => {
    if (event?.type === "space.member.joined" || event?.type === "space.member.left") void refreshMembers().catch(() => undefined);
    render();
  });
  live.on("status", ({ status, delayMs, error }) => {
    connection.dataset.status = status;
    connection.textContent = status === "open" ? "● live" : status === "reconnecting" ? "○ reconnecting…" : status === "closed" ? "○ closed" : "○ connecting…";
    if (status === "reconnecting" && error)
      banner.textContent = `Connection lost (${error.message}). Reconnecting in ${Math.round((delayMs ?? 0) / 100) / 10}s; nothing will be missed.`;
    else if (status === "open") banner.textContent = "";
  });
  live.on("error", (error: SwitchboardError) => {
    banner.textContent = `The stream stopped: ${error.message}`;
    banner.classList.add("fatal");
  });
  refreshMembers().catch((error) => (banner.textContent = `Could not read the members: ${(error as Error).message}`));
  return { close: () => live.close() };
}

const { session, spaceId } = readSession();
const operatorKey = readOperatorKey();
if (operatorKey) void startOperator(operatorKey);
else if (session) void start(session, spaceId);
else signInView();
