/** Prefixed random ids, so an id says what it names (`spc_…` is a space). */
export type IdPrefix = "ent" | "agt" | "spc" | "msg" | "run" | "call" | "evt" | "goal" | "mem" | "plan" | "stream" | "flw";

export function createId(prefix: IdPrefix): string {
  return `${prefix}_${crypto.randomUUID().replaceAll("-", "")}`;
}
