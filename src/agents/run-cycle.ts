/**
 * One cycle of an agent, run as journaled steps. A new cycle claims the
 * inbox and opens a run; a run the journal already holds (its instance died,
 * or its last attempt failed) is continued from its last durable step. Each
 * step is one model call and its tool calls; each is journaled as it
 * completes. A failed attempt is tried again with backoff, up to
 * `maxRunAttempts`, then the run fails and keeps its events. The end is
 * committed exactly once (`finish-run.ts`). Never throws.
 */
import type { ModelMessage } from "ai";
import { createDatabase, type StatementCounter } from "../db/client";
import { runs } from "../db/schema";
import { parentRunIdOf } from "../db/run-trees";
import { createId } from "../ids";
import { SpaceEventBuffer } from "../spaces/space-event-buffer";
import { messageIdForCall, pendingToolNames, settleCard } from "../tools";
import { checkCycleBudget } from "./cycle-budget";
import { debounceUntil, interrupts, presentEvents, supersededEvents } from "./double-texting";
import { type ActiveRun, emptyUsage, type StepRecord, StoredMessages } from "./cycle-journal";
import { addUsage, CycleTimeoutError, newToolCall } from "./cycle-stream";
import { type Attempt, type CycleHost, prepareAttempt, scriptedTurn } from "./cycle-setup";
import { continueStep } from "./continue-step";
import { commitRunEnd, type RunEnd, writeRunRecord } from "./finish-run";
import { sendQueuedAnswers } from "./subagent-answers";
import { publicErrorMessage } from "./public-error-message";
import { runStep, stepEndsCycle } from "./run-step";
import { defaultReflectionSteps, isReflectionRun, reflectionEvent, reflectionEventId, reflectionNote, shouldReflect } from "./reflection/reflection";
import { inboxMessage } from "./system-prompt";
import type { AgentConfig } from "./agent-config";
import { InheritedSettingsError, inheritedNote, runConfigOf, scriptedTurnKey } from "./run-config";
import type { QueuedEvent } from "./inbox-event";
import { jumpTurn } from "../models/scripted-jump";
import { z } from "zod";
import { chatResult, chatSpan, invokeAgentSpan } from "../telemetry/gen-ai-spans";
import { rootContext, startRunTrace } from "../telemetry/run-trace";
import type { SpanParent } from "../telemetry/tracer";

export const maxRunAttempts = 3;
/** Before attempt n (n ≥ 2): 1 s, 2 s, 4 s … at most a minute. */
export const retryDelayMs = (attempt: number) => Math.min(60_000, 1_000 * 2 ** Math.max(0, attempt - 2));

export type CycleOutcome =
  | { status: "idle" }
  | { status: "completed" | "failed" | "interrupted"; runId: string }
  /** The run waits for its next attempt, or the agent for its cycle budget. */
  | { status: "waiting"; until: number };

const CycleStarts = z.array(z.number());

export async function runCycle(host: CycleHost): Promise<CycleOutcome> {
  const { journal } = host;
  const active = journal.active();
  if (active) {
    if (active.attempt > maxRunAttempts) return giveUp(host, active);
    if (Date.now() < active.notBefore) return { status: "waiting", until: active.notBefore };
    return attempt(host, active);
  }
  const run = beginRun(host);
  if ("waiting" in run) return { status: "waiting", until: run.waiting };
  if (!run.started) return { status: "idle" };
  return attempt(host, run.started, { fresh: true });
}

/** Claims the ready events into a new run, if the cycle budget allows one now. */
function beginRun(host: CycleHost): { started?: ActiveRun } | { waiting: number } {
  const { storage, journal, agent } = host;
  const now = Date.now();
  const ready = storage.readyEvents(now);
  if (ready.length === 0) return {};
  const strategy = agent.config.loop.doubleTexting;
  const quietAt = debounceUntil(strategy, ready, now);
  if (quietAt !== undefined) {
    storage.write("cycle_not_before", quietAt);
    return { waiting: quietAt };
  }
  const budget = checkCycleBudget(storage.read("cycle_starts", CycleStarts) ?? [], agent.config.limits.maxCyclesPerMinute, now);
  if (!budget.ok) {
    storage.write("cycle_not_before", budget.retryAt);
    if (storage.read("throttled_since", z.number()) === undefined) {
      storage.write("throttled_since", now);
      host.effects.publish("agent.cycle.throttled", { limit: agent.config.limits.maxCyclesPerMinute, retryAt: new Date(budget.retryAt).toISOString() });
    }
    return { waiting: budget.retryAt };
  }
  return storage.transaction(() => {
    const runId = createId("run");
    const claimed = storage.claim(runId, now);
    const superseded = supersededEvents(strategy, claimed);
    storage.drop(superseded.map((queued) => queued.id));
    const events = claimed.filter((queued) => !superseded.includes(queued));
    if (events.length === 0) return {};
    storage.delete("cycle_not_before");
    // A task that brings its caller's model or limits: this run uses them (a part that does not pass fails the run as it starts).
    const scoped = runConfigOf(agent.config, events);
    const config = scoped.ok ? scoped.config : agent.config;
    const run: ActiveRun = {
      runId,
      startedAt: new Date(now).toISOString(),
      userMessage: inboxMessage(presentEvents(strategy, events), new Date(now), config.limits.toolResponseMaxBytes),
      hop: Math.max(0, ...events.map((queued) => ("hop" in queued.event ? (queued.event.hop ?? 0) : 0))),
      ...(initiatorOf(events) && { initiatorEntityId: initiatorOf(events) }),
      attempt: 1,
      notBefore: 0,
      step: 0,
      usage: emptyUsage(),
      notes: [
        ...(superseded.length === 0
          ? []
          : [
              {
                at: new Date(now).toISOString(),
                kind: "superseded" as const,
                message: `Double texting "latest": ${superseded.length} earlier message(s) dropped for newer ones (${superseded.map((queued) => queued.id).join(", ")})`,
              },
            ]),
        ...(scoped.ok && scoped.inherited ? [{ at: new Date(now).toISOString(), kind: "inherited" as const, message: inheritedNote(scoped.config, scoped.inherited) }] : []),
      ],
      // Its first attempt starts at once (`attempt`), so it is saved running, with a scripted
      // model's place in its script for the first step: one save instead of three.
      running: true,
      ...(config.model.provider === "scripted" && { scriptedTurn: scriptedTurnAtStart(host, config, events) }),
      ...(host.tracer.enabled && { trace: startRunTrace(events.map(traceparentOfEvent), conversationOf(events) ?? runId, answeredCalls(events)) }),
    };
    const throttledSince = storage.read("throttled_since", z.number());
    if (throttledSince !== undefined) {
      run.notes.push({
        at: run.startedAt,
        kind: "throttled",
        message: `Started ${((now - throttledSince) / 1000).toFixed(1)} s late: limits.maxCyclesPerMinute is ${agent.config.limits.maxCyclesPerMinute}`,
      });
      storage.delete("throttled_since");
    }
    storage.write("cycle_starts", budget.starts);
    journal.saveRun(run);
    return { started: run };
  });
}

/**
 * Where a scripted model's run starts in its script: where it stood, or where
 * a jump sends it when a space message of this run says the jump's words
 * (kept at once, so a retry or the next run goes on from there).
 */
function scriptedTurnAtStart(host: CycleHost, config: AgentConfig, events: readonly QueuedEvent[]): number {
  const { storage, agent } = host;
  const model = config.model;
  const key = scriptedTurnKey(events);
  const texts = events.flatMap(({ event }) => (event.type === "space_message" && event.entityId !== agent.entityId ? [event.text] : []));
  const jumped = model.provider === "scripted" ? jumpTurn(model.jumps, texts) : undefined;
  if (jumped === undefined) return storage.read(key, scriptedTurn) ?? 0;
  storage.write(key, jumped);
  return jumped;
}

/** One attempt at a run: from its first step, or from where the journal says it stopped. */
async function attempt(ownHost: CycleHost, run: ActiveRun, options: { fresh?: boolean } = {}): Promise<CycleOutcome> {
  // The run's config: the agent's own, or with the model and limits of the caller whose task it works on (checked at each attempt).
  const claimed = ownHost.storage.claimed(run.runId);
  const scoped = runConfigOf(ownHost.agent.config, claimed);
  const host: CycleHost = scoped.ok && scoped.config !== ownHost.agent.config ? { ...ownHost, agent: { ...ownHost.agent, config: scoped.config } } : ownHost;
  const turnKey = scriptedTurnKey(claimed);
  const { env, storage, journal, agent } = host;
  // A run that has just begun has nothing journaled to continue: nothing is looked up.
  const resumed = !options.fresh && (run.attempt > 1 || run.step > 0 || journal.openCalls(run.runId).length > 0);
  // A run that begins now was saved running already (`beginRun`); a continued one is marked here.
  if (!run.running) {
    run.running = true;
    journal.saveRun(run);
  }
  const counter: StatementCounter = { count: 0 };
  const database = createDatabase(env.DB, counter);
  const spaceEvents = new SpaceEventBuffer(env);
  const abortSignal = AbortSignal.any([AbortSignal.timeout(agent.config.limits.cycleTimeout), host.signals.deleted, host.signals.stopped]);
  const runSpan = host.tracer.under(run.trace && rootContext(run.trace));
  let prepared: Attempt | undefined;
  /** The spaces that hear about this run: known before anything that may fail (a model without its key). */
  let audience: Pick<Attempt, "spaceIds"> | undefined;
  let records: StepRecord[] = [];
  let runRowWritten: Promise<unknown> = Promise.resolve();
  try {
    if (!resumed) {
      const trigger = storage.claimed(run.runId).map((queued) => ({ id: queued.id, receivedAt: queued.receivedAt, attempt: 1, ...queued.event }));
      // Written while the cycle starts thinking; the end of the run writes the full record either way.
      runRowWritten = database
        .insert(runs)
        .values({ id: run.runId, agentId: agent.id, agentEntityId: agent.entityId, status: "running", trigger, parentRunId: parentRunIdOf(trigger) })
        .onConflictDoNothing()
        .catch((error: unknown) => {
          console.error("could not write the run's start", run.runId, error);
        });
    }
    // A reflection pass is in no space: nobody hears about it.
    audience = { spaceIds: isReflectionRun(storage.claimed(run.runId)) ? [] : (await host.effects.loadSpaces(database)).map((space) => space.id) };
    announce(host, audience, spaceEvents, run, resumed ? "agent.cycle.resumed" : "agent.cycle.started");
    if (!scoped.ok) throw new InheritedSettingsError(scoped.error);
    prepared = await prepareAttempt(host, run, database, spaceEvents, runSpan);
    const { context, tools } = prepared;

    const completed = resumed ? journal.completedSteps(run.runId) : [];
    records = completed.map((step) => step.record);
    const previous = storage.read("consciousness", StoredMessages) ?? [];
    const messages: ModelMessage[] = [...previous, { role: "user", content: run.userMessage }, ...completed.flatMap((step) => step.messages)];
    const maxSteps = prepared.reflection ? (agent.config.reflection?.maxSteps ?? defaultReflectionSteps) : agent.config.loop.maxSteps;
    let done = records.length > 0 && stepEndsCycle(records[records.length - 1]);

    if (resumed && !done && run.step < maxSteps) {
      const calls = journal.calls(run.runId, run.step);
      if (calls.length > 0) {
        const continued = await continueStep({
          calls,
          pipeline: prepared.pipeline,
          messages,
          runId: run.runId,
          stepNumber: run.step,
          settled: prepared.settled,
          abortSignal,
          publish: host.effects.publish,
        });
        journal.note(
          run,
          "redone",
          `Step ${run.step} continued after an interruption: ${continued.reused} call(s) kept their outcome, ${continued.redone} were done again under the same id; text and calls the model had not finished were dropped`,
        );
        journal.completeStep(run, continued.messages, continued.record);
        messages.push(...continued.messages);
        records.push(continued.record);
        done = stepEndsCycle(continued.record);
      } else if (run.scriptedTurn !== undefined) {
        // The step's model call was cut off before any call ran: it is asked again, from the same place.
        storage.write(turnKey, run.scriptedTurn);
        journal.note(run, "redone", `Step ${run.step} was asked again: the model's answer was cut off before any tool call ran`);
      }
    }

    while (!done && run.step < maxSteps) {
      // Where a scripted model is in its script as the step starts: a step cut short is asked again from here.
      const turn = storage.read(turnKey, scriptedTurn) ?? 0;
      if (run.scriptedTurn !== turn) {
        run.scriptedTurn = turn;
        journal.saveRun(run);
      }
      const chat = startChatSpan(runSpan, agent.config.model, run.trace?.conversationId);
      const step = await runStep({
        runId: run.runId,
        stepNumber: run.step,
        publish: host.effects.publish,
        observers: prepared.observers,
        settled: prepared.settled,
        callIds: context.callIds,
        model: prepared.model,
        system: prepared.system,
        messages,
        tools,
        toolChoice: prepared.reflection ? "auto" : agent.config.loop.toolChoice,
        maxConcurrentTools: agent.config.limits.maxConcurrentTools,
        abortSignal,
        temperature: agent.config.model.temperature,
        maxOutputTokens: agent.config.model.maxOutputTokens,
      });
      if (!step.ok) {
        chat.fail(abortSignal.aborted ? "timeout" : "model_error");
        chat.end();
        throw abortSignal.aborted ? new CycleTimeoutError() : step.error;
      }
      chat.setAttributes(chatResult(step.record.step.usage ?? {}, step.record.step.finishReason));
      chat.end();
      addUsage(run.usage, step.record.step.usage);
      journal.completeStep(run, step.messages, step.record);
      messages.push(...step.messages);
      records.push(step.record);
      done = stepEndsCycle(step.record);
      if (!done && interrupts(agent.config.loop.doubleTexting, storage.readyEvents())) {
        // Double texting "interrupt": newer messages end this cycle here; the next one starts over with everything.
        journal.note(run, "interrupted", `Ended after step ${run.step - 1}: newer messages arrived (double texting "interrupt"); its events go to the next cycle with them`);
        await spaceEvents.drain();
        await runRowWritten;
        if (host.signals.deleted.aborted) return { status: "idle" };
        await finish(host, run, audience, spaceEvents, { status: "interrupted", messages, records, d1Statements: counter.count + 1 });
        return { status: "interrupted", runId: run.runId };
      }
    }

    await spaceEvents.drain();
    await runRowWritten;
    if (host.signals.deleted.aborted) return { status: "idle" };
    // A reflection pass leaves the consciousness as the cycle it reflected on left it, and is never reflected on.
    const reflect = shouldReflect(agent.config, records, prepared.reflection);
    // Not saved with the journal here: a pass continued after a crash before its end adds it then, once.
    if (prepared.reflection && !run.notes.some((note) => note.kind === "reflection")) run.notes.push(reflectionNote(records, storage.claimed(run.runId)));
    await finish(host, run, audience, spaceEvents, {
      status: "completed",
      ...(!prepared.reflection && { messages }),
      records,
      d1Statements: counter.count + 1,
      ...(reflect && { followUp: { id: reflectionEventId(run.runId), event: reflectionEvent(run.runId) } }),
    });
    return { status: "completed", runId: run.runId };
  } catch (error) {
    await spaceEvents.drain().catch(() => undefined);
    await runRowWritten;
    // The agent was deleted mid-cycle: there is nothing left to record.
    if (host.signals.deleted.aborted) return { status: "idle" };
    const message = host.signals.stopped.aborted ? `Aborted by an operator: ${publicErrorMessage(host.signals.stopped.reason)}` : publicErrorMessage(error);
    // Settings a task brought that do not pass would not pass at the next attempt either: the run fails now.
    const final = error instanceof CycleTimeoutError || error instanceof InheritedSettingsError || abortSignal.aborted;
    if (final || run.attempt >= maxRunAttempts) {
      const suffix = final ? "" : " (no attempts left; events kept on this run)";
      await failRun(host, run, audience, spaceEvents, records, `${message}${suffix}`, counter.count + 1);
      return { status: "failed", runId: run.runId };
    }
    run.attempt += 1;
    run.running = false;
    run.notBefore = Date.now() + retryDelayMs(run.attempt);
    journal.note(run, "retried", `Attempt ${run.attempt - 1} failed: ${message}; attempt ${run.attempt} at ${new Date(run.notBefore).toISOString()}`);
    host.effects.publish("agent.cycle.retrying", { runId: run.runId, attempt: run.attempt, error: message, retryAt: new Date(run.notBefore).toISOString() });
    return { status: "waiting", until: run.notBefore };
  }
}

/** A run whose attempts were all interrupted (or an operator stopped it while it waited to retry): it fails, keeping its events. */
export async function giveUp(host: CycleHost, run: ActiveRun, reason?: string): Promise<CycleOutcome> {
  const spaceEvents = new SpaceEventBuffer(host.env);
  const spaces = await host.effects.loadSpaces(createDatabase(host.env.DB, { count: 0 })).catch(() => []);
  const records = host.journal.stepRecords(run.runId);
  const last = [...run.notes].reverse().find((note) => note.kind === "recovered" || note.kind === "retried");
  const error = reason ?? `The run was interrupted ${run.attempt - 1} time(s) and gave up${last ? ` (last: ${last.message})` : ""}; events kept on this run`;
  await failRun(host, run, { spaceIds: spaces.map((space) => space.id) }, spaceEvents, records, error, null);
  return { status: "failed", runId: run.runId };
}

/** A failed run: its open calls are closed on the record and their cards show the error, then the end is committed. */
async function failRun(
  host: CycleHost,
  run: ActiveRun,
  prepared: Pick<Attempt, "spaceIds"> | undefined,
  spaceEvents: SpaceEventBuffer,
  records: StepRecord[],
  error: string,
  d1Statements: number | null,
): Promise<void> {
  // Approvals nobody gave can never let their call run now: they expire (a late answer gets 410).
  for (const pendingId of host.journal.openWaits(run.runId)) {
    await host.toolRuntime.calls.expire(pendingId).catch((expireError: unknown) => console.error("could not expire a wait", pendingId, expireError));
  }
  const open = host.journal.openCalls(run.runId).filter((call) => !call.outcome);
  const pendingTools = pendingToolNames(host.agent.config);
  const unfinished = open.map((call) => {
    const record = newToolCall(call.toolCallId, { toolCallId: call.modelToolCallId, toolName: call.toolName, input: call.input }, call.step);
    // A call waiting on a person or a service stays answerable: its late result goes to the inbox.
    Object.assign(record, pendingTools.has(call.toolName) ? { status: "pending" } : { status: "failed", error: "The run failed before this call finished" });
    return record;
  });
  for (const call of open) {
    if (!call.cardSpaceId || pendingTools.has(call.toolName)) continue;
    await settleCard(
      spaceEvents.ordered(call.cardSpaceId),
      { spaceId: call.cardSpaceId, messageId: messageIdForCall(call.toolCallId), minimal: call.cardMinimal },
      { toolCallId: call.toolCallId, toolName: call.toolName, args: call.input },
      { error: "The run failed before this call finished" },
    ).catch((cardError: unknown) => console.error("could not close a card", call.toolCallId, cardError));
  }
  await finish(host, run, prepared, spaceEvents, { status: "failed", error, records, unfinished, d1Statements });
}

async function finish(host: CycleHost, run: ActiveRun, prepared: Pick<Attempt, "spaceIds"> | undefined, spaceEvents: SpaceEventBuffer, end: RunEnd): Promise<void> {
  const { agent } = host;
  recordRootSpan(host, run, end);
  const { record, answers, eventId } = commitRunEnd(
    host.storage,
    host.journal,
    { id: agent.id, entityId: agent.entityId, name: agent.name, consciousnessTokens: agent.config.limits.consciousnessTokens },
    run,
    { ...end, spaceIds: prepared?.spaceIds ?? [] },
  );
  if (eventId) host.effects.fanOut(eventId);
  await writeRunRecord(host.env, host.storage, record);
  await sendQueuedAnswers(host.env, host.storage, answers, host.effects.publish);
  host.effects.publish("agent.cycle.finished", { runId: run.runId, status: end.status, usage: run.usage, d1Statements: end.d1Statements, ...(end.error && { error: end.error }) });
  for (const spaceId of prepared?.spaceIds ?? []) {
    spaceEvents.push(spaceId, {
      type: "agent.cycle.finished",
      data: { agentEntityId: agent.entityId, runId: run.runId, status: end.status, ...(end.error && { error: end.error }) },
    });
  }
  await spaceEvents.drain();
}

function announce(host: CycleHost, audience: Pick<Attempt, "spaceIds">, spaceEvents: SpaceEventBuffer, run: ActiveRun, type: "agent.cycle.started" | "agent.cycle.resumed"): void {
  const trigger = host.storage.claimed(run.runId).map((queued) => ({ id: queued.id, receivedAt: queued.receivedAt, attempt: run.attempt, ...queued.event }));
  host.effects.publish(type, { runId: run.runId, trigger, attempt: run.attempt, ...(type === "agent.cycle.resumed" && { step: run.step }) });
  // A space hears that a run started once, not at every attempt.
  if (run.attempt > 1 || type !== "agent.cycle.started") return;
  for (const spaceId of audience.spaceIds) spaceEvents.push(spaceId, { type: "agent.cycle.started", data: { agentEntityId: host.agent.entityId, runId: run.runId } });
}

/** The entity whose message started a run: the first space message among its events. */
function initiatorOf(events: { event: { type: string; entityId?: string } }[]): string | undefined {
  return events.find((queued) => queued.event.type === "space_message")?.event.entityId;
}

/** The model step's span (`chat {model}`), under the run's root span. */
function startChatSpan(runSpan: SpanParent, model: { provider: string; name?: string }, conversationId: string | undefined) {
  const span = chatSpan(model, conversationId);
  return runSpan.child(span.name, { kind: "client", attributes: span.attributes });
}

/** The run's root span (`invoke_agent {agent}`), written once, as the run ends: from its start, over every attempt. */
function recordRootSpan(host: CycleHost, run: ActiveRun, end: RunEnd): void {
  const { trace } = run;
  if (!trace?.sampled) return;
  const { agent } = host;
  const span = invokeAgentSpan({ id: agent.id, name: agent.name }, trace.conversationId, agent.config.model);
  host.tracer.record({
    traceId: trace.traceId,
    spanId: trace.spanId,
    ...(trace.parentSpanId && { parentSpanId: trace.parentSpanId }),
    ...(trace.links && {
      links: trace.links.map((link) => ({ traceId: link.traceId, spanId: link.spanId, sampled: link.sampled, attributes: { "gen_ai.tool.call.id": link.toolCallId } })),
    }),
    name: span.name,
    kind: "internal",
    startTimeMs: Date.parse(run.startedAt),
    endTimeMs: Date.now(),
    attributes: {
      ...span.attributes,
      "gen_ai.usage.input_tokens": run.usage.inputTokens,
      "gen_ai.usage.output_tokens": run.usage.outputTokens,
      "switchboard.run.id": run.runId,
      "switchboard.run.status": end.status,
      "switchboard.run.attempts": run.attempt,
      "switchboard.run.steps": end.records.length,
      ...(end.status === "failed" && { "error.type": "run_failed" }),
    },
    // The run's error message may quote an upstream's answer: the status says failed, the run record says why.
    status: end.status === "failed" ? { code: "error" } : { code: "unset" },
  });
}

/** The `traceparent` an event carried in from its caller (checked at the route). A tool result's is its call's: linked, not a parent. */
function traceparentOfEvent(queued: QueuedEvent): string | undefined {
  if (queued.event.type === "tool_result") return undefined;
  return "traceparent" in queued.event ? queued.event.traceparent : undefined;
}

/**
 * The calls of earlier runs whose answers are among the run's events, each
 * with its span's `traceparent`: the run's root span links to them. Not their
 * child: the call ended with its own run, and this run is the agent's next
 * (not a sub-run in the run tree, not counted in that run's usage).
 */
function answeredCalls(events: readonly QueuedEvent[]): { toolCallId: string; traceparent?: string }[] {
  return events.flatMap(({ event }) => (event.type === "tool_result" ? [{ toolCallId: event.toolCallId, traceparent: event.traceparent }] : []));
}

/** `gen_ai.conversation.id`: the space of the first space message among a run's events. */
function conversationOf(events: readonly QueuedEvent[]): string | undefined {
  for (const { event } of events) if (event.type === "space_message") return event.spaceId;
  return undefined;
}
