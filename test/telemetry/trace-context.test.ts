/**
 * W3C `traceparent`: a valid value is taken (the run becomes its child), a
 * malformed one is ignored rather than refused, a call whose answer woke the
 * run is linked (never a parent), and the gateway's own ids are well formed.
 */
import { describe, expect, it } from "vitest";
import { formatTraceparent, newSpanId, newTraceId, parseTraceparent, readTraceparent, traceparentOf } from "../../src/telemetry/trace-context";
import { RunTrace, startRunTrace } from "../../src/telemetry/run-trace";

const valid = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

describe("traceparent", () => {
  it("reads a valid value, sampled or not", () => {
    expect(parseTraceparent(valid)).toEqual({ traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", sampled: true });
    expect(parseTraceparent(valid.replace(/-01$/, "-00"))?.sampled).toBe(false);
    // Flags other than sampled are kept out of the decision.
    expect(parseTraceparent(valid.replace(/-01$/, "-03"))?.sampled).toBe(true);
    expect(parseTraceparent(` ${valid} `)?.spanId).toBe("b7ad6b7169203331");
    expect(formatTraceparent(parseTraceparent(valid) ?? { traceId: "", spanId: "", sampled: false })).toBe(valid);
  });

  it("reads a later version's first four fields and ignores what follows", () => {
    expect(parseTraceparent(`cc-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-what-comes-later`)?.traceId).toBe("0af7651916cd43dd8448eb211c80319c");
  });

  it.each([
    ["missing", undefined],
    ["not a string", 42],
    ["empty", ""],
    ["upper case", valid.toUpperCase()],
    ["a zero trace id", `00-${"0".repeat(32)}-b7ad6b7169203331-01`],
    ["a zero span id", `00-0af7651916cd43dd8448eb211c80319c-${"0".repeat(16)}-01`],
    ["version ff", valid.replace(/^00/, "ff")],
    ["version 00 with more fields", `${valid}-extra`],
    ["a short trace id", "00-0af7651916cd43dd8448eb211c8031-b7ad6b7169203331-01"],
    ["a long span id", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333100-01"],
    ["no flags", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331"],
    ["not hex", "00-0af7651916cd43dd8448eb211c80319g-b7ad6b7169203331-01"],
    ["a line break inside", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0\n1"],
    ["far too long", `${valid}${" ".repeat(600)}`],
  ])("ignores a malformed value: %s", (_why, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
    expect(readTraceparent(value)).toBeUndefined();
    expect(traceparentOf(value)).toEqual({});
  });

  it("makes ids of the right length, in lowercase hex", () => {
    expect(newTraceId()).toMatch(/^[0-9a-f]{32}$/);
    expect(newSpanId()).toMatch(/^[0-9a-f]{16}$/);
    expect(newTraceId()).not.toBe(newTraceId());
  });

  it("puts a run under the first valid traceparent among its events, else in a trace of its own", () => {
    const child = startRunTrace([undefined, "garbage", valid], "spc_1");
    expect(child).toMatchObject({ traceId: "0af7651916cd43dd8448eb211c80319c", parentSpanId: "b7ad6b7169203331", sampled: true, conversationId: "spc_1" });
    expect(child.spanId).toMatch(/^[0-9a-f]{16}$/);
    const own = startRunTrace(["garbage"], "run_1");
    expect(own.parentSpanId).toBeUndefined();
    expect(own.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(own.sampled).toBe(true);
  });

  it("links a run to the calls whose answers woke it, never making them its parent; at most 128 links", () => {
    const call = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00";
    const answered = [{ toolCallId: "call_a", traceparent: call }, { toolCallId: "call_b", traceparent: "garbage" }, { toolCallId: "call_c" }];
    const linked = startRunTrace([valid], "spc_1", answered);
    expect(linked).toMatchObject({ traceId: "0af7651916cd43dd8448eb211c80319c", parentSpanId: "b7ad6b7169203331" });
    expect(linked.links).toEqual([{ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", sampled: false, toolCallId: "call_a" }]);
    const alone = startRunTrace([], "run_2", answered);
    expect(alone.parentSpanId).toBeUndefined();
    expect(alone.traceId).not.toBe("4bf92f3577b34da6a3ce929d0e0e4736");
    expect(RunTrace.parse(alone)).toEqual(alone);
    const many = Array.from({ length: 200 }, (_, index) => ({ toolCallId: `call_${index}`, traceparent: call }));
    expect(startRunTrace([], "run_3", many).links).toHaveLength(128);
    expect(startRunTrace([], "run_4").links).toBeUndefined();
  });
});
