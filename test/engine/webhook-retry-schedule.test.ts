/**
 * The two retry schedules of pushes, as pure functions: a pushed call backs
 * off from 1 s to a 5-minute cap until its deadline, a subscription's event
 * follows the Standard Webhooks schedule (hours) and then gives up; every
 * wait is jittered within ±20%.
 */
import { describe, expect, it } from "vitest";
import {
  jittered,
  nextAttempt,
  pushedCallBackoffCapMs,
  pushedCallRetryDelayMs,
  subscriptionRetryDelayMs,
  subscriptionScheduleMs,
  type WebhookRetrySchedule,
} from "../../src/webhooks/webhook-retry-schedule";

const middle = () => 0.5;
const lowest = () => 0;
const highest = () => 0.999_999;

describe("retry schedules", () => {
  it("a pushed call waits 1 s, doubling, capped at five minutes", () => {
    const waits = Array.from({ length: 14 }, (_, index) => pushedCallRetryDelayMs(index + 1, middle));
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 300_000, 300_000, 300_000, 300_000, 300_000]);
    expect(pushedCallRetryDelayMs(10_000, middle)).toBe(pushedCallBackoffCapMs);
    // A receiver down for longer than the old 15.5 s schedule is still being tried after it.
    expect(waits.slice(0, 5).reduce((sum, wait) => sum + wait, 0)).toBeGreaterThan(15_500);
  });

  it("a subscription's event is tried at once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h; then it gives up", () => {
    expect(subscriptionScheduleMs[0]).toBe(0);
    const waits = Array.from({ length: 7 }, (_, index) => subscriptionRetryDelayMs(index + 1, middle));
    expect(waits).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(subscriptionRetryDelayMs(8, middle)).toBeUndefined();
  });

  it("jitter spreads every wait within ±20%", () => {
    expect(jittered(10_000, lowest)).toBe(8_000);
    expect(jittered(10_000, highest)).toBe(12_000);
    expect(jittered(10_000, middle)).toBe(10_000);
    expect(pushedCallRetryDelayMs(20, lowest)).toBe(240_000);
    expect(subscriptionRetryDelayMs(6, () => 1)).toBe(43_200_000);
    const spread = new Set(Array.from({ length: 50 }, () => subscriptionRetryDelayMs(1)));
    expect(spread.size).toBeGreaterThan(1);
    for (const wait of spread) {
      expect(wait).toBeGreaterThanOrEqual(4_000);
      expect(wait).toBeLessThanOrEqual(6_000);
    }
  });

  it("a pushed call's last retry is brought forward to its deadline, and after it the push gives up", () => {
    const schedule: WebhookRetrySchedule = { pushedCall: () => 60_000, subscription: () => undefined };
    expect(nextAttempt({ attempt: 3 }, 1_000, schedule)).toEqual({ retryAt: 61_000 });
    expect(nextAttempt({ attempt: 3, giveUpAt: 500_000 }, 1_000, schedule)).toEqual({ retryAt: 61_000 });
    expect(nextAttempt({ attempt: 3, giveUpAt: 30_000 }, 1_000, schedule)).toEqual({ retryAt: 30_000 });
    expect(nextAttempt({ attempt: 4, giveUpAt: 30_000 }, 30_000, schedule)).toMatchObject({ giveUp: expect.stringContaining("deadline") });
  });

  it("a subscription's delivery gives up once its schedule is spent, whatever the clock says", () => {
    const short: WebhookRetrySchedule = { pushedCall: () => 1, subscription: (failed) => (failed < 3 ? 10 : undefined) };
    expect(nextAttempt({ subscriptionId: "whk_1", attempt: 2 }, 100, short)).toEqual({ retryAt: 110 });
    expect(nextAttempt({ subscriptionId: "whk_1", attempt: 3 }, 100, short)).toMatchObject({ giveUp: expect.stringContaining("3 attempts") });
    expect(nextAttempt({ subscriptionId: "whk_1", attempt: 8 }, 0)).toMatchObject({ giveUp: expect.stringContaining("8 attempts") });
    expect("retryAt" in nextAttempt({ subscriptionId: "whk_1", attempt: 7 }, 0)).toBe(true);
  });
});
