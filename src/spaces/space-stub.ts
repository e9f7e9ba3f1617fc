/** The SpaceDO of a space, addressed by the space id (its name), as the port the other layers use. */
import type { AppEnv } from "../env";
import type { SpacePort } from "../protocol/space-port";

export function spaceStub(env: AppEnv, spaceId: string): SpacePort & { fetch(request: Request): Promise<Response> } {
  return env.SPACE.getByName(spaceId);
}
