/**
 * What tools see of a pending call's life: answer it, wait for it, give up on
 * it, expire it. The life itself (staging, the D1 transition, the journal,
 * waking the waiting cycle, the inbox) belongs to the agent object
 * (`src/agents/pending-call-owner.ts`); tools never reach around this port.
 */
import type { WaitPolicy } from "../config/wait-policy-config";
import type { PendingCall } from "./pending-calls";
import type { ToolOutcome } from "./tool-outcome";

export type SubmitAnswer =
  | { kind: "accepted" }
  | { kind: "duplicate" }
  | { kind: "conflict" }
  | { kind: "expired"; expiresAt: string | null }
  /** The answer does not fit the call (e.g. an approval with arguments the tool refuses): nothing changed. */
  | { kind: "invalid"; message: string }
  /** The result does not match the tool's `resultSchema`: nothing changed. */
  | { kind: "invalid_result"; message: string };

/** The wait ended with an outcome, or goes on (escalated) until `deadline`, with the card now in `card`. */
export type TimeoutResult = { outcome: ToolOutcome } | { escalated: true; deadline: number; card?: { spaceId: string; messageId: string } };

export type PendingCallPort = {
  /** A result (or a reported failure) for a call, from whoever may answer it. */
  submit(call: PendingCall, outcome: Extract<ToolOutcome, { type: "ok" | "error" }>, answerer?: string): Promise<SubmitAnswer>;
  /**
   * Settles an open call with what the gateway itself got for it (a remote
   * agent's finished task, a request sent once an account was connected):
   * `produce` runs under the call's lock, only while the call is open. Calls
   * that only the gateway settles refuse results from outside (`submit`).
   * False when the call was not open.
   */
  settleWith(toolCallId: string, produce: (call: PendingCall) => Promise<Extract<ToolOutcome, { type: "ok" | "error" }>>): Promise<boolean>;
  /**
   * The call's outcome: at once when it is already recorded, else when it
   * arrives (pushed, not polled), or undefined at `until` or on `signal`.
   */
  await(pendingId: string, until: number, signal?: AbortSignal): Promise<ToolOutcome | undefined>;
  /** The wait ran out of time: its policy decides (error, deny, approve, escalate). */
  timeOut(pendingId: string, toolName: string, policy: WaitPolicy): Promise<TimeoutResult>;
  /** Expires a call now (`reason`: what the model is told, else that it expired); false when it had already settled. */
  expire(toolCallId: string, reason?: string): Promise<boolean>;
};
