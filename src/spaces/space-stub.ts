/** The SpaceDO of a space, addressed by the space id. */
import type { AppEnv } from "../env";

export function spaceStub(env: AppEnv, spaceId: string) {
  return env.SPACE.get(env.SPACE.idFromName(spaceId));
}
