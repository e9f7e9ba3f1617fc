/** AgentDO: one per agent (inbox, cycles, waits, alarms). */
import { DurableObject } from "cloudflare:workers";
import type { AppEnv } from "../env";

export class AgentDO extends DurableObject<AppEnv> {}
