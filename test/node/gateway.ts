/** What the node tests share: the running gateway, clients for it, and a fresh world per test. */
import { readFileSync, watch } from "node:fs";
import { inject } from "vitest";
import { type SpaceEvent, type SpaceEventOf, Switchboard, signToken } from "../../client/src/index";

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

/**
 * The first event of `type` on a space's stream that `matches`, replayed from
 * seq 0 (so one that happened before the call is found too), with a deadline.
 */
export async function spaceEvent<T extends SpaceEvent["type"]>(
  spaceId: string,
  type: T,
  matches: (event: SpaceEventOf<T>) => boolean,
  timeoutMs = 20_000,
): Promise<SpaceEventOf<T>> {
  const subscription = admin.subscribe(spaceId, { afterSeq: 0 });
  try {
    return await new Promise<SpaceEventOf<T>>((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error(`no matching ${type} reached space ${spaceId} within ${timeoutMs} ms`)), timeoutMs);
      subscription.on("event", (event) => {
        if (event.type !== type || !matches(event as SpaceEventOf<T>)) return;
        clearTimeout(deadline);
        resolve(event as SpaceEventOf<T>);
      });
    });
  } finally {
    subscription.close();
  }
}

/** The dev server's console so far (to check what it printed). */
export function devLog(): string {
  return readFileSync(gateway.logFile, "utf8");
}

/** The first line of the dev server's console that `matches`: looked for now, then at every change of the file, with a deadline. */
export async function devLogLine(what: string, matches: (line: string) => boolean, timeoutMs = 30_000): Promise<string> {
  const find = () => devLog().split("\n").find(matches);
  const watcher = watch(gateway.logFile);
  try {
    return await new Promise<string>((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error(`${what} did not appear in the dev console within ${timeoutMs} ms`)), timeoutMs);
      const check = () => {
        const line = find();
        if (line === undefined) return;
        clearTimeout(deadline);
        resolve(line);
      };
      watcher.on("change", check);
      watcher.on("error", (error) => (clearTimeout(deadline), reject(error)));
      // Registered before this first look, so a line written in between is not missed.
      check();
    });
  } finally {
    watcher.close();
  }
}
