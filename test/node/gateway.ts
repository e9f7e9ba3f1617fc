/** What the node tests share: the running gateway, clients for it, and a fresh world per test. */
import { readFileSync } from "node:fs";
import { inject } from "vitest";
import { Switchboard, signToken } from "../../client/src/index";

export const gateway = inject("gateway");

export const admin = new Switchboard({ baseUrl: gateway.baseUrl, secretKey: gateway.vars.GATEWAY_SECRET_KEY });

export async function memberClient(entityId: string, options: Partial<ConstructorParameters<typeof Switchboard>[0]> = {}): Promise<Switchboard> {
  const token = await signToken(entityId, { secret: gateway.vars.JWT_SECRET, expiresIn: "1h" });
  return new Switchboard({ baseUrl: gateway.baseUrl, publicKey: gateway.vars.GATEWAY_PUBLIC_KEY, token, ...options });
}

/** A person, and a space with the person in it (and any extra members). */
export async function personInSpace(name = "Pat", extraMembers: string[] = []) {
  const person = await admin.entities.create({ type: "human", name });
  const space = await admin.spaces.create({ name: `${name}'s room`, memberIds: [person.id, ...extraMembers] });
  return { personId: person.id, spaceId: space.id };
}

/** Waits for a condition with a deadline, polling (for state outside any stream). */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not happen within ${timeoutMs} ms${last ? ` (last error: ${(last as Error).message})` : ""}`);
}

/** The dev server's console so far (to check what it printed). */
export function devLog(): string {
  return readFileSync(gateway.logFile, "utf8");
}
