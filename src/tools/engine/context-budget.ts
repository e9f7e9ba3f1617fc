/**
 * The context-budget guard: the outputs of one step's tool calls, together,
 * stay under a share of the model's context (`limits.toolOutputContextShare`
 * of `limits.contextWindowTokens`, at about four bytes a token). An output
 * that would go past it is stored whole behind a handle and the model gets a
 * short head instead; nothing is dropped, and the answer says so with the
 * orchestrator's flag, `toolBudgetExceeded: true`. Parallel calls are charged
 * in the order they finish.
 */
import type { JournalAccess, PlatformAccess, RunIdentity, SettingsAccess } from "./tool-context";
import { bytesPerToken, fitPreview, modelBytes, storeWhole } from "./limit-output";
import type { ToolOutcome } from "./tool-outcome";

/** What an output that went over the budget still shows of itself. */
const overBudgetPreviewBytes = 1_000;
/** Room for the envelope (handle, size, note) around that head. */
const envelopeFloorBytes = 800;

export class ContextBudget {
  readonly #used = new Map<number, number>();

  constructor(readonly budgetBytes: number) {}

  static of(limits: { contextWindowTokens?: number; toolOutputContextShare?: number }): ContextBudget {
    const tokens = limits.contextWindowTokens ?? 128_000;
    const share = limits.toolOutputContextShare ?? 0.5;
    return new ContextBudget(Math.floor(tokens * share * bytesPerToken));
  }

  /** What is left of the budget in a step. */
  remaining(step: number): number {
    return this.budgetBytes - (this.#used.get(step) ?? 0);
  }

  charge(step: number, bytes: number): void {
    this.#used.set(step, (this.#used.get(step) ?? 0) + bytes);
  }

  /** Charges an outcome to its step; one that does not fit is put behind a handle first. */
  async apply(context: RunIdentity & PlatformAccess & SettingsAccess & JournalAccess, call: { toolCallId: string; toolName: string }, outcome: ToolOutcome): Promise<ToolOutcome> {
    const step = context.stepNumber();
    const bytes = modelBytes(outcome);
    if (outcome.type !== "ok" || outcome.content || bytes <= this.remaining(step)) {
      this.charge(step, bytes);
      return outcome;
    }
    // What is left of the budget, at most a short head; never below what the envelope itself needs.
    const maxBytes = Math.max(envelopeFloorBytes, Math.min(overBudgetPreviewBytes + envelopeFloorBytes, this.remaining(step)));
    if (outcome.meta?.outputHandle) {
      // Already stored whole (this envelope is the gateway's own): only its preview shrinks.
      const envelope = outcome.value as Record<string, unknown>;
      const value = fitPreview(String(envelope.preview ?? ""), maxBytes, (preview) => ({
        ...envelope,
        preview,
        note: `${String(envelope.note ?? "")} (Shortened: this step's tool outputs reached the context budget.)`,
        toolBudgetExceeded: true,
      }));
      const shrunk: ToolOutcome = { ...outcome, value };
      this.charge(step, modelBytes(shrunk));
      return shrunk;
    }
    const stored = await storeWhole(context, call, outcome, maxBytes, {
      code: "context_budget_exceeded",
      text: `This step's tool outputs reached the context budget (${this.budgetBytes} bytes)`,
    });
    const limited: ToolOutcome = stored.type === "ok" ? { ...stored, value: { ...(stored.value as Record<string, unknown>), toolBudgetExceeded: true } } : stored;
    this.charge(step, modelBytes(limited));
    return limited;
  }
}
