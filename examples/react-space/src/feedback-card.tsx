/**
 * A custom card for the demo agent's `ask_feedback` tool (its result schema:
 * `rating` 1–5 and `favourite`, required, and a `comment`): a row of
 * numbered buttons instead of a generic form. It answers with
 * `useToolResult`: `submit` posts the result, `decline` says no.
 */
import type { ToolCardProps } from "@switchboard/react";
import { useToolResult } from "@switchboard/react";
import { type FormEvent, useState } from "react";

const favourites = ["Streaming text", "Tool cards", "The CLI", "Nothing yet"];

export function FeedbackCard({ call, message, canAnswer, waitingFor }: ToolCardProps) {
  const { submit, decline, pending, error } = useToolResult(call.toolCallId);
  const [rating, setRating] = useState<number>();
  const [favourite, setFavourite] = useState("");
  const [comment, setComment] = useState("");
  const [problem, setProblem] = useState<string>();
  const question = stringField(call.args, "question") ?? "How is it going?";
  const send = (event: FormEvent) => {
    event.preventDefault();
    if (rating === undefined || !favourite) {
      setProblem("Choose a rating and what you liked most");
      return;
    }
    setProblem(undefined);
    void submit({ rating, favourite, ...(comment.trim() && { comment: comment.trim() }) });
  };
  return (
    <section className="feedback-card" data-tool-call-id={call.toolCallId} data-status={call.status} data-draft={message.draft === true}>
      <h3>{question}</h3>
      <Outcome status={call.status} result={call.result} />
      {waitingFor ? <p className="waiting-for">{waitingFor} may answer this.</p> : null}
      {canAnswer ? (
        <form onSubmit={send}>
          <fieldset className="rating">
            <legend>How useful is it so far?</legend>
            {[1, 2, 3, 4, 5].map((value) => (
              <button key={value} type="button" className="star" aria-pressed={rating === value} onClick={() => setRating(value)}>
                {value}
              </button>
            ))}
          </fieldset>
          <label>
            What did you like most?{" "}
            <select name="favourite" value={favourite} onChange={(event) => setFavourite(event.target.value)}>
              <option value="">Choose…</option>
              {favourites.map((choice) => (
                <option key={choice}>{choice}</option>
              ))}
            </select>
          </label>
          <label>
            Anything else? <textarea name="comment" rows={2} maxLength={500} value={comment} onChange={(event) => setComment(event.target.value)} />
          </label>
          {(problem ?? error) ? (
            <p className="problem" role="alert">
              {problem ?? error?.message}
            </p>
          ) : null}
          <div className="actions">
            <button type="submit" disabled={pending}>
              Send feedback
            </button>
            <button type="button" disabled={pending} onClick={() => void decline()}>
              Decline
            </button>
          </div>
        </form>
      ) : null}
    </section>
  );
}

/** What came of the card, once it has an outcome. */
function Outcome({ status, result }: { status: string; result: unknown }) {
  if (status === "error") {
    const reason = stringField(result, "error");
    return <p className="outcome declined">Declined{reason ? `: ${reason}` : ""}</p>;
  }
  if (status !== "complete") return null;
  const rating = numberField(result, "rating");
  const favourite = stringField(result, "favourite");
  return (
    <p className="outcome">
      Thanks: {rating === undefined ? "answered" : `${rating}/5`}
      {favourite ? `, liked ${favourite} most` : ""}
    </p>
  );
}

function stringField(value: unknown, name: string): string | undefined {
  const field = typeof value === "object" && value !== null && name in value ? (value as Record<string, unknown>)[name] : undefined;
  return typeof field === "string" ? field : undefined;
}

function numberField(value: unknown, name: string): number | undefined {
  const field = typeof value === "object" && value !== null && name in value ? (value as Record<string, unknown>)[name] : undefined;
  return typeof field === "number" ? field : undefined;
}
