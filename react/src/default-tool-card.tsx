/**
 * The card drawn for a tool no component is registered for: its name and
 * status, the arguments (as they stream), the result, who may answer, and
 * for the person it waits for, a JSON answer with Send and Decline (or,
 * when it waits for them to connect an account, a Connect button). Plain
 * markup with `sb-` classes and data attributes to style it by.
 */
import { type FormEvent, type ReactNode, useState } from "react";
import type { ToolCardProps } from "./tool-card.js";
import { useConnectAccount } from "./use-connect-account.js";
import { useToolResult } from "./use-tool-result.js";

export function DefaultToolCard({ call, message, canAnswer, waitingFor }: ToolCardProps): ReactNode {
  const status = message.draft ? "streaming" : call.status;
  return (
    <div className="sb-tool-card" data-tool-name={call.toolName} data-tool-call-id={call.toolCallId} data-status={call.status} data-draft={message.draft === true}>
      <div className="sb-tool-header">
        <strong className="sb-tool-name">{call.toolName}</strong> <span className="sb-badge">{statusText(status, canAnswer, call.account !== undefined)}</span>
      </div>
      {call.args !== undefined && <pre className="sb-tool-args">{json(call.args)}</pre>}
      {call.result !== undefined && <pre className="sb-tool-result">{json(call.result)}</pre>}
      {call.account && call.status === "requires_action" ? (
        <AccountRequest account={call.account} canAnswer={canAnswer} />
      ) : (
        <>
          {waitingFor && <p className="sb-waiting-for">{waitingFor} may answer this.</p>}
          {canAnswer && <JsonAnswer toolCallId={call.toolCallId} />}
        </>
      )}
    </div>
  );
}

type Account = NonNullable<ToolCardProps["call"]["account"]>;

/** A call that waits for a person to connect an account: the service and scopes, and for that person a Connect button. */
function AccountRequest({ account, canAnswer }: { account: Account; canAnswer: boolean }): ReactNode {
  const { connect, pending, link, error } = useConnectAccount(account.flowId);
  const scopes = account.scopes.length > 0 ? ` (${account.scopes.join(" ")})` : "";
  if (!canAnswer) {
    return (
      <p className="sb-account-request" data-service={account.service}>
        Waits for {account.entityId} to connect {account.service}
        {scopes}.
      </p>
    );
  }
  return (
    <div className="sb-account-request" data-service={account.service}>
      <p>
        The agent needs your {account.service} account to go on{scopes}.
      </p>
      <button type="button" disabled={pending} onClick={() => void connect()}>
        Connect {account.service}
      </button>
      {link && (
        <p className="sb-account-link">
          Finish in the new tab; this card goes on by itself. No tab?{" "}
          <a href={link} target="_blank" rel="noopener noreferrer">
            Open the sign-in page
          </a>
        </p>
      )}
      {error && (
        <p className="sb-problem" role="alert">
          {error.message}
        </p>
      )}
    </div>
  );
}

/** A JSON result, checked for being JSON before it is sent (the gateway checks it against the tool's result schema). */
function JsonAnswer({ toolCallId }: { toolCallId: string }): ReactNode {
  const { submit, decline, pending, error } = useToolResult(toolCallId);
  const [text, setText] = useState("{}");
  const [problem, setProblem] = useState<string>();
  const send = (event: FormEvent) => {
    event.preventDefault();
    let result: unknown;
    try {
      result = JSON.parse(text);
    } catch {
      setProblem("The answer is not JSON");
      return;
    }
    setProblem(undefined);
    void submit(result);
  };
  return (
    <form className="sb-answer" onSubmit={send}>
      <textarea name="result" aria-label="Answer (JSON)" value={text} onChange={(event) => setText(event.target.value)} rows={3} />
      {(problem ?? error) && (
        <p className="sb-problem" role="alert">
          {problem ?? error?.message}
        </p>
      )}
      <button type="submit" disabled={pending}>
        Send answer
      </button>{" "}
      <button type="button" disabled={pending} onClick={() => void decline()}>
        Decline
      </button>
    </form>
  );
}

function statusText(status: string, canAnswer: boolean, account: boolean): string {
  if (status === "requires_action" && account) return canAnswer ? "connect your account" : "waiting for an account";
  if (status === "requires_action") return canAnswer ? "waiting for you" : "waiting for an answer";
  if (status === "streaming") return "streaming…";
  return status;
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? String(value);
}
