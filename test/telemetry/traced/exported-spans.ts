/**
 * The spans the `workers-traced` project's gateway exported: every OTLP/JSON
 * request the fake remote's `otel.test` received (test/fake-remote.ts), read
 * back and flattened (attribute values as plain values, a link's flags as
 * `sampled`). Exports leave after a cycle, without the cycle waiting for
 * them: `spanWhere` waits until the span a test needs has arrived.
 */
import { z } from "zod";
import { waitUntil } from "../../support/agents";

const AnyValue = z.object({
  stringValue: z.string().optional(),
  boolValue: z.boolean().optional(),
  intValue: z.string().optional(),
  doubleValue: z.number().optional(),
  arrayValue: z.object({ values: z.array(z.object({ stringValue: z.string() })) }).optional(),
});
const KeyValues = z.array(z.object({ key: z.string(), value: AnyValue }));
const JsonSpan = z.object({
  traceId: z.string(),
  spanId: z.string(),
  parentSpanId: z.string().optional(),
  name: z.string(),
  attributes: KeyValues,
  links: z.array(z.object({ traceId: z.string(), spanId: z.string(), flags: z.number(), attributes: KeyValues })).optional(),
});
const ExportRequest = z.object({ resourceSpans: z.array(z.object({ scopeSpans: z.array(z.object({ spans: z.array(JsonSpan) })) })) });
const Recorded = z.array(z.object({ body: z.string() }));

export type AttributeValue = string | number | boolean | string[];
export type ExportedLink = { traceId: string; spanId: string; sampled: boolean; attributes: Record<string, AttributeValue> };
export type ExportedSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes: Record<string, AttributeValue>; links: ExportedLink[] };

function plainValue(value: z.infer<typeof AnyValue>): AttributeValue {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  return value.arrayValue?.values.map((item) => item.stringValue) ?? [];
}

const attributesOf = (list: z.infer<typeof KeyValues>) => Object.fromEntries(list.map(({ key, value }) => [key, plainValue(value)]));

/** Every span exported so far, in the order they arrived. */
export async function exportedSpans(): Promise<ExportedSpan[]> {
  const recorded = Recorded.parse(await (await fetch("http://recorded.test/otel")).json());
  return recorded.flatMap(({ body }) =>
    ExportRequest.parse(JSON.parse(body)).resourceSpans.flatMap((resource) =>
      resource.scopeSpans.flatMap((scope) =>
        scope.spans.map((span) => ({
          traceId: span.traceId,
          spanId: span.spanId,
          ...(span.parentSpanId && { parentSpanId: span.parentSpanId }),
          name: span.name,
          attributes: attributesOf(span.attributes),
          links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId, sampled: (link.flags & 1) === 1, attributes: attributesOf(link.attributes) })),
        })),
      ),
    ),
  );
}

/** The first exported span `matches` accepts, once it has arrived. */
export async function spanWhere(what: string, matches: (span: ExportedSpan) => boolean, timeoutMs = 10_000): Promise<ExportedSpan> {
  let found: ExportedSpan | undefined;
  await waitUntil(
    async () => {
      found = (await exportedSpans()).find(matches);
      return found !== undefined;
    },
    timeoutMs,
    what,
  );
  if (found === undefined) throw new Error(`${what}: not exported`);
  return found;
}

/** A tool call's span (`execute_tool {name}`), by the gateway's call id. */
export const callSpan = (toolName: string, toolCallId: string) =>
  spanWhere(`the span of ${toolName} ${toolCallId}`, (span) => span.name === `execute_tool ${toolName}` && span.attributes["gen_ai.tool.call.id"] === toolCallId);

/** A run's root span (`invoke_agent {agent}`), by the run's id. */
export const rootSpan = (runId: string) =>
  spanWhere(`the root span of ${runId}`, (span) => span.name.startsWith("invoke_agent ") && span.attributes["switchboard.run.id"] === runId);

/** The `traceparent` a request made for a span carries (the gateway's spans are sampled). */
export const spanTraceparent = (span: Pick<ExportedSpan, "traceId" | "spanId">) => `00-${span.traceId}-${span.spanId}-01`;
