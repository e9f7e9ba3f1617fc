/**
 * A local OTLP/HTTP receiver for the node tests: a plain node server on
 * loopback that decodes every `POST /v1/traces` with protobufjs and the
 * official OpenTelemetry .proto files (test/fixtures/otlp-proto, from
 * opentelemetry-proto v1.11.0), or as OTLP JSON, and keeps the spans. It can
 * hold requests unanswered (an endpoint that hangs) and then cut them (an
 * endpoint that goes down).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { join } from "node:path";
import protobuf from "protobufjs";

const protoRoot = join(import.meta.dirname, "..", "fixtures", "otlp-proto");

export type DecodedValue = { stringValue?: string; boolValue?: boolean; intValue?: string; doubleValue?: number; arrayValue?: { values?: DecodedValue[] } };
export type DecodedSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, DecodedValue>;
  links: { traceId: string; spanId: string; flags?: number; attributes: Record<string, DecodedValue> }[];
  status: { code?: number; message?: string };
};
export type DecodedExport = { contentType: string; headers: Record<string, string | string[] | undefined>; resource: Record<string, DecodedValue>; spans: DecodedSpan[] };

type RawKeyValue = { key: string; value?: DecodedValue };
type RawLink = { traceId?: string; spanId?: string; flags?: number; attributes?: RawKeyValue[] };
type RawSpan = Omit<DecodedSpan, "traceId" | "spanId" | "parentSpanId" | "attributes" | "links"> & {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes?: RawKeyValue[];
  links?: RawLink[];
};
type RawRequest = { resourceSpans?: { resource?: { attributes?: RawKeyValue[] }; scopeSpans?: { spans?: RawSpan[] }[] }[] };

function loadRequestType(): protobuf.Type {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(protoRoot, target);
  root.loadSync("opentelemetry/proto/collector/trace/v1/trace_service.proto", { keepCase: false });
  return root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
}

const attributesOf = (list: RawKeyValue[] | undefined): Record<string, DecodedValue> => Object.fromEntries((list ?? []).map(({ key, value }) => [key, value ?? {}]));
const base64ToHex = (text: string | undefined): string => Buffer.from(text ?? "", "base64").toString("hex");

/** Protobuf bytes decoded by the official schema, ids as hex. */
export function decodeProtobufExport(bytes: Uint8Array): Omit<DecodedExport, "contentType" | "headers"> {
  const type = loadRequestType();
  // Decoding is strict: bytes that do not fit the schema throw here.
  const object = type.toObject(type.decode(bytes), { longs: String, enums: Number, bytes: String, defaults: false }) as RawRequest;
  return flatten(object, base64ToHex);
}

function flatten(request: RawRequest, ids: (value: string | undefined) => string): Omit<DecodedExport, "contentType" | "headers"> {
  const resourceSpans = request.resourceSpans ?? [];
  return {
    resource: attributesOf(resourceSpans[0]?.resource?.attributes),
    spans: resourceSpans.flatMap((resource) =>
      (resource.scopeSpans ?? []).flatMap((scope) =>
        (scope.spans ?? []).map((span) => ({
          ...span,
          traceId: ids(span.traceId),
          spanId: ids(span.spanId),
          parentSpanId: span.parentSpanId ? ids(span.parentSpanId) : "",
          attributes: attributesOf(span.attributes),
          links: (span.links ?? []).map((link) => ({
            traceId: ids(link.traceId),
            spanId: ids(link.spanId),
            ...(link.flags !== undefined && { flags: link.flags }),
            attributes: attributesOf(link.attributes),
          })),
          status: span.status ?? {},
        })),
      ),
    ),
  };
}

export type OtlpReceiver = {
  url: string;
  exports: DecodedExport[];
  spans(): DecodedSpan[];
  /** Requests from now on are held, unanswered, until `cutHeld`. */
  hold(): void;
  held(): number;
  /** Ends every held request by cutting its connection (the endpoint went down), and answers again from then on. */
  cutHeld(): void;
  close(): Promise<void>;
};

/** `onRequest` hears of every request once it is decoded, held or refused (what a test waits on may have changed). */
export async function startOtlpReceiver(onRequest: () => void = () => undefined): Promise<OtlpReceiver> {
  const exports: DecodedExport[] = [];
  let holding = false;
  const heldRequests: { request: IncomingMessage; response: ServerResponse }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (holding) {
        heldRequests.push({ request, response });
        onRequest();
        return;
      }
      const body = Buffer.concat(chunks);
      const contentType = request.headers["content-type"] ?? "";
      try {
        if (request.method !== "POST" || request.url !== "/v1/traces") throw new Error(`unexpected ${request.method} ${request.url}`);
        const decoded = contentType === "application/json" ? flatten(JSON.parse(body.toString("utf8")) as RawRequest, (id) => id ?? "") : decodeProtobufExport(body);
        exports.push({ contentType, headers: request.headers, ...decoded });
        response.writeHead(200, { "content-type": contentType }).end(contentType === "application/json" ? "{}" : "");
      } catch (error) {
        response.writeHead(400).end(String(error));
      }
      onRequest();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || !address) throw new Error("the receiver has no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    exports,
    spans: () => exports.flatMap((received) => received.spans),
    hold: () => {
      holding = true;
    },
    held: () => heldRequests.length,
    cutHeld: () => {
      holding = false;
      for (const { request } of heldRequests.splice(0)) request.socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const { request } of heldRequests.splice(0)) request.socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An attribute's value as plain data (int64 as a number). */
export function attributeValue(value: DecodedValue | undefined): unknown {
  if (value === undefined) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(attributeValue);
  // A string, bool or int at its default still names its type (the writer keeps oneof members).
  return undefined;
}

export const attributesAsData = (span: { attributes: Record<string, DecodedValue> }): Record<string, unknown> =>
  Object.fromEntries(Object.entries(span.attributes).map(([key, value]) => [key, attributeValue(value)]));
