/**
 * What one export carries besides its spans: the resource (which gateway
 * sent them) and the instrumentation scope (which code made them).
 */
import type { Attributes } from "./span-record";

export type ExportIdentity = {
  resource: Attributes;
  scope: { name: string; version: string };
};
