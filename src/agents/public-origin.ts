/**
 * Where the gateway is reachable, for the callback URLs an agent hands out:
 * `PUBLIC_URL` when it is set, else the origin requests last came in on
 * (kept in the agent object's storage, so a restarted object still knows it).
 */
import { z } from "zod";
import type { AppEnv } from "../env";
import type { AgentStorage } from "./agent-storage";

const key = "public_origin";

export class PublicOrigin {
  /** The origin this instance last stored (or read): a request from the same origin reads and writes nothing. */
  #known: string | undefined;

  constructor(
    private readonly env: AppEnv,
    private readonly storage: () => AgentStorage,
  ) {}

  /** A request came in on `origin`. */
  remember(origin: string | undefined): void {
    if (!origin || origin === this.#known) return;
    if (this.storage().read(key, z.string()) !== origin) this.storage().write(key, origin);
    this.#known = origin;
  }

  get(): string | undefined {
    return (typeof this.env.PUBLIC_URL === "string" && this.env.PUBLIC_URL) || this.storage().read(key, z.string());
  }

  /** The storage was wiped (the agent was deleted). */
  forget(): void {
    this.#known = undefined;
  }
}
