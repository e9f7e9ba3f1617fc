/**
 * Hops: how many agent cycles led to a request. A person's request is hop 0;
 * a gateway tool's request carries its cycle's hop + 1 in this header, and an
 * agent's reply wakes others one hop further. Past `maxHops` the gateway
 * refuses the work, so a tool that calls the gateway back cannot loop forever.
 */
export const hopHeader = "x-switchboard-hop";

export const maxHops = 8;

/** The largest number the header may carry: anything past `maxHops` is refused as a loop, past this as malformed. */
export const maxHopValue = 999;

/** The hop a request carries: absent is 0; a whole number 0–999 is a hop count; anything else is not one. */
export function readHop(value: string | null | undefined): { ok: true; hop: number } | { ok: false; message: string } {
  if (value === null || value === undefined || value === "") return { ok: true, hop: 0 };
  if (/^\d{1,3}$/.test(value)) return { ok: true, hop: Number(value) };
  return { ok: false, message: `${hopHeader} must be a whole number from 0 to ${maxHopValue} (how many agent hops led here), not ${JSON.stringify(value.slice(0, 40))}` };
}
