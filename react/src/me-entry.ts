/**
 * Who the client acts as (`GET /api/me`: the entity and its spaces), read
 * once per provider when something first asks: `useMe`, the tool handlers
 * (which answer only cards meant for this person) and the cards (which offer
 * an answer only to someone who may give it).
 */
import { type Me, type Switchboard, SwitchboardError } from "@switchboard/client";

export type MeSnapshot = {
  me: Me | undefined;
  /** Why it could not be read (a secret-key client has no "me": it acts as no entity). */
  error: SwitchboardError | undefined;
  loading: boolean;
};

export class MeEntry {
  #snapshot: MeSnapshot = { me: undefined, error: undefined, loading: false };
  #listeners = new Set<() => void>();
  #reading: Promise<Me | undefined> | undefined;

  constructor(private readonly client: Switchboard) {}

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    void this.read();
    return () => this.#listeners.delete(listener);
  };

  getSnapshot = (): MeSnapshot => this.#snapshot;

  /** The entity, read once (an error is kept: it is the answer until the provider gets another client). */
  read(): Promise<Me | undefined> {
    this.#reading ??= this.#read();
    return this.#reading;
  }

  async #read(): Promise<Me | undefined> {
    this.#set({ me: undefined, error: undefined, loading: true });
    try {
      const me = await this.client.me();
      this.#set({ me, error: undefined, loading: false });
      return me;
    } catch (error) {
      this.#set({ me: undefined, error: error instanceof SwitchboardError ? error : SwitchboardError.network(error, "GET /api/me"), loading: false });
      return undefined;
    }
  }

  #set(snapshot: MeSnapshot): void {
    this.#snapshot = snapshot;
    for (const listener of [...this.#listeners]) listener();
  }
}
