/**
 * What workerd writes during `npm test` that is known and says nothing wrong:
 * each entry is one kind of line, why it comes, and why it is harmless. The
 * test plugin writes workerd's log straight to this process's stdout and
 * stderr, one line (with its stack, if any) per write, past vitest's
 * `onConsoleLog`; `dropHarmlessWorkerdLines` drops the writes that start with
 * one of these and lets everything else through. Anything that fails a test
 * still shows: vitest reports the failure itself.
 *
 * Not here, because they were fixed where they came from: tests that read a
 * binary body as text, and the logs the code writes on purpose (a stored row
 * that does not parse, a configuration problem), which those tests now
 * capture and check (test/support/captured-errors.ts).
 */
export const harmlessWorkerdLines: { line: RegExp; why: string }[] = [
  {
    line: /^NOSENTRY SQLite alarm (handler canceled with requestScheduledAlarm|overdue, running despite AlarmManager mismatch)/,
    why:
      "workerd keeping its alarm timer in step with an object's own alarm. The agent's scheduler moves its alarm later on purpose (the heartbeat " +
      "while a cycle runs) and deletes it when there is nothing left to do; workerd updates its timer after the write, lazily, so the earlier " +
      "time can still fire, and then it cancels that run (or runs it, if the new time is already due) and sets the timer again. It is workerd's " +
      "designed recovery (NOSENTRY: not an error), logged at most once an hour by each workerd; any file that runs an agent cycle can " +
      "show it, and `npm run dev` shows it too.",
  },
  {
    line: /^exception = workerd\/api\/unsafe\.c\+\+:\d+: failed: jsg\.Error: Application called abortAllDurableObjects\(\)/,
    why: "the crash tests (and the tests of restarts elsewhere) kill every object on purpose with abortAllDurableObjects(); workerd logs each request or alarm the kill cut off.",
  },
  {
    line: /^failed to invoke drain\(\) on IncomingRequest before destroying it/,
    why: "the same kills: a request to an object that abortAllDurableObjects() cut off never finished.",
  },
  {
    line: /^exception = kj\/async-io\.c\+\+:\d+: disconnected: read end of pipe was aborted/,
    why: "test/bad-input.test.ts streams a 300 KiB body with no Content-Length: the gateway stops reading at the limit and answers 413, and the test's sending side is told nobody reads any more.",
  },
  {
    line: /^(uncaught exception; exception = workerd\/api\/streams\/identity-transform-stream\.c\+\+:\d+: failed: jsg\.TypeError: FixedLengthStream did not see all expected bytes before close\(\)|exception = kj\/async-io\.c\+\+:\d+: disconnected: fixed-length pipe ended prematurely)/,
    why: "test/bad-input.test.ts sends a body that breaks off (it promises 1,000 bytes and ends after 20): the break is the case under test, and the gateway answers 400.",
  },
  {
    line: /^exception = workerd\/api\/streams\/internal\.c\+\+:\d+: disconnected: pump canceled/,
    why:
      "a client that stops reading a streamed response (the stream tests cancel their reader of an SSE or NDJSON stream once they have the " +
      "events they wait for): workerd logs that it stopped pumping the Worker's stream to that client. Seen only on a loaded machine, when " +
      "the cancel lands while a chunk is in flight.",
  },
  {
    line: /^exception = workerd\/api\/streams\/identity-transform-stream\.c\+\+:\d+: disconnected: reader canceled/,
    why: "read_output cancels the body of a stored output that has expired instead of reading it (test/providers/outputs.test.ts); R2's side is told its reader went away.",
  },
  {
    line: /^uncaught exception; source = Uncaught \(in promise\); stack = Error: Message msg_\w+ is stored in D1 but its parts cannot be read/,
    why: "test/agents/stored-json.test.ts damages a message in D1 on purpose to check that the read fails loudly (500); workerd reports the error leaving the space object's RPC method as uncaught there, as it does for any RPC method that throws.",
  },
  {
    line: /^(uncaught exception|Annotating with brokenness)\b.*The agent object's storage is at version \d+, but this code knows versions up to \d+: it was written by a newer release/,
    why: "test/db/object-migrations.test.ts gives an agent object storage from a newer release on purpose: the object refuses to start, which the test checks, and workerd reports the refusal and each request the broken object then refuses.",
  },
];

/** A stream written to as process.stdout and process.stderr are (a chunk, then an encoding and/or a callback). */
type WriteStream = { write(chunk: unknown, ...rest: unknown[]): boolean };

/** Drops the writes to `stream` that are one of `harmlessWorkerdLines`; everything else is written as it was. */
export function dropHarmlessWorkerdLines(stream: WriteStream): void {
  const write = stream.write.bind(stream);
  const decoder = new TextDecoder();
  stream.write = (chunk: unknown, ...rest: unknown[]): boolean => {
    const text = typeof chunk === "string" ? chunk : chunk instanceof Uint8Array ? decoder.decode(chunk) : "";
    if (!harmlessWorkerdLines.some(({ line }) => line.test(text))) return write(chunk, ...rest);
    // Dropped: still call the write's callback, as a write that went through would.
    const callback = rest.find((argument) => typeof argument === "function");
    if (typeof callback === "function") callback();
    return true;
  };
}
