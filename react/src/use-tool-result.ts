/**
 * `useToolResult(toolCallId)`: a person's answer to a card. `submit(result)`
 * posts the result (checked by the gateway against the tool's result
 * schema); `decline(reason?)` says no, which ends the call in error (a no is
 * not a result: it would not fit the schema), so the card shows it declined
 * and the agent reads why. `pending` while a post is under way, `error` when
 * the gateway refused it (a 403 for someone the card does not let answer, a
 * 409 when someone answered first, a 422 for a result that does not fit),
 * `sent` once it was taken. Neither function throws: each resolves to
 * whether the answer was taken.
 *
 * The run to answer in is found in the spaces the page has open (the card's
 * own run); pass `runId` for a card shown from elsewhere.
 */
import { useCallback, useState } from "react";
import { useSwitchboardStore } from "./switchboard-context.js";

/** What `decline()` says without a reason: the words the live page uses. */
export const declinedByPerson = "The person asked declined to answer";

export type ToolResultState = {
  submit(result: unknown): Promise<boolean>;
  decline(reason?: string): Promise<boolean>;
  pending: boolean;
  error: Error | undefined;
  /** What was taken: the result, or the decline. */
  sent: { kind: "result"; result: unknown } | { kind: "declined"; reason: string } | undefined;
};

export function useToolResult(toolCallId: string, options: { runId?: string } = {}): ToolResultState {
  const store = useSwitchboardStore("useToolResult");
  const [state, setState] = useState<Omit<ToolResultState, "submit" | "decline">>({ pending: false, error: undefined, sent: undefined });
  const { runId } = options;
  const post = useCallback(
    async (answer: { kind: "result"; result: unknown } | { kind: "declined"; reason: string }): Promise<boolean> => {
      const run = runId ?? store.runOf(toolCallId);
      if (!run) {
        setState({ pending: false, error: new Error(`No open space shows the card ${toolCallId}: open its space with useSpace, or pass its runId`), sent: undefined });
        return false;
      }
      setState({ pending: true, error: undefined, sent: undefined });
      try {
        if (answer.kind === "result") await store.client.submitToolResult(run, toolCallId, answer.result);
        else await store.client.submitToolError(run, toolCallId, answer.reason);
        setState({ pending: false, error: undefined, sent: answer });
        return true;
      } catch (error) {
        setState({ pending: false, error: error instanceof Error ? error : new Error(String(error)), sent: undefined });
        return false;
      }
    },
    [store, toolCallId, runId],
  );
  const submit = useCallback((result: unknown) => post({ kind: "result", result }), [post]);
  const decline = useCallback((reason: string = declinedByPerson) => post({ kind: "declined", reason }), [post]);
  return { ...state, submit, decline };
}
