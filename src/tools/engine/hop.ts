/**
 * Hops: how many agent cycles led to a request. A person's request is hop 0;
 * a gateway tool's request carries its cycle's hop + 1 in this header, and an
 * agent's reply wakes others one hop further. Past `maxHops` the gateway
 * refuses the work, so a tool that calls the gateway back cannot loop forever.
 */
export const hopHeader = "x-switchboard-hop";

export const maxHops = 8;

/** The hop a request carries: absent is 0; garbage is treated as the limit (refused). */
export function readHop(value: string | null | undefined): number {
  if (value === null || value === undefined || value === "") return 0;
  return /^\d{1,4}$/.test(value) ? Number(value) : maxHops + 1;
}
