/**
 * What a closed space socket does, seen from a raw TCP client (so nothing
 * between hides the frames): at token expiry (4001) and when the person is
 * removed from the space (4003) the close frame arrives at once and nothing
 * follows it; once the client answers the close frame, the runtime ends the
 * TCP connection (about 10 s later under workerd: the runtime's own
 * teardown, which an object cannot shorten). A client that never answers is
 * the documented limit: see docs/api.md.
 */
import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";
import { describe, expect, it, onTestFinished } from "vitest";
import { signToken } from "../../client/src/index";
import { admin, gateway, personInSpace } from "./gateway";

type Seen = { closeCode?: number; closeAt?: number; framesAfterClose: number; endedAt?: number };

/** A WebSocket client on a bare TCP socket: it answers the close frame (like a browser) and notes when the server ends the connection. Destroyed when the test ends. */
function rawStream(path: string): Promise<{ socket: Socket; seen: Seen; ended: Promise<void>; closeFrame: Promise<void> }> {
  const url = new URL(path, gateway.baseUrl);
  const socket = connect(Number(url.port), url.hostname);
  onTestFinished(() => void socket.destroy());
  const seen: Seen = { framesAfterClose: 0 };
  let buffer = Buffer.alloc(0);
  let upgraded = false;
  let markClose: () => void = () => undefined;
  const closeFrame = new Promise<void>((resolve) => (markClose = resolve));
  const ended = new Promise<void>((resolve) => socket.once("close", () => ((seen.endedAt = Date.now()), resolve())));
  return new Promise((resolve, reject) => {
    socket.once("error", reject);
    socket.once("connect", () =>
      socket.write(
        `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      ),
    );
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!upgraded) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end === -1) return;
        const status = buffer.subarray(0, buffer.indexOf("\r\n")).toString();
        if (!status.includes(" 101 ")) return reject(new Error(`no upgrade: ${status}`));
        buffer = buffer.subarray(end + 4);
        upgraded = true;
        resolve({ socket, seen, ended, closeFrame });
      }
      while (buffer.length >= 2) {
        const opcode = buffer[0] & 0x0f;
        let length = buffer[1] & 0x7f;
        let offset = 2;
        if (length === 126) [length, offset] = [buffer.readUInt16BE(2), 4];
        else if (length === 127) [length, offset] = [Number(buffer.readBigUInt64BE(2)), 10];
        if (buffer.length < offset + length) return;
        const payload = buffer.subarray(offset, offset + length);
        buffer = buffer.subarray(offset + length);
        if (seen.closeCode !== undefined) seen.framesAfterClose += 1;
        else if (opcode === 0x8) {
          seen.closeCode = payload.readUInt16BE(0);
          seen.closeAt = Date.now();
          // Answer it, masked as a client must.
          const mask = randomBytes(4);
          const body = Buffer.from([0x03, 0xe8].map((byte, index) => byte ^ mask[index]));
          socket.write(Buffer.concat([Buffer.from([0x88, 0x82]), mask, body]));
          markClose();
        }
      }
    });
  });
}

const streamPath = (spaceId: string, token: string) => `/api/spaces/${spaceId}/stream?publicKey=${gateway.vars.GATEWAY_PUBLIC_KEY}&token=${token}`;

describe("closing a space socket", () => {
  it("at token expiry (4001): the close frame comes at once, nothing after it, and the connection ends once answered", async () => {
    const { personId, spaceId } = await personInSpace("Expiring");
    const token = await signToken(personId, { secret: gateway.vars.JWT_SECRET, expiresIn: "2s" });
    const expiresAt = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString()).exp * 1000;
    const stream = await rawStream(streamPath(spaceId, token));
    await stream.closeFrame;
    expect(stream.seen.closeCode).toBe(4001);
    expect((stream.seen.closeAt ?? 0) - expiresAt).toBeLessThan(3_000);
    await stream.ended;
    expect(stream.seen.framesAfterClose).toBe(0);
    expect((stream.seen.endedAt ?? 0) - (stream.seen.closeAt ?? 0)).toBeLessThan(20_000);
  }, 60_000);

  it("when the person is removed (4003): the close frame comes at once, nothing after it, and the connection ends once answered", async () => {
    const other = await admin.entities.create({ type: "human", name: "Stays" });
    const { personId, spaceId } = await personInSpace("Removed", [other.id]);
    const token = await signToken(personId, { secret: gateway.vars.JWT_SECRET, expiresIn: "1h" });
    const stream = await rawStream(streamPath(spaceId, token));
    const removedAt = Date.now();
    await admin.spaces.removeMember(spaceId, personId);
    // The space goes on: none of it reaches the removed person's socket.
    await admin.messages.send(spaceId, { text: "after the removal", entityId: other.id });
    await stream.closeFrame;
    expect(stream.seen.closeCode).toBe(4003);
    expect((stream.seen.closeAt ?? 0) - removedAt).toBeLessThan(3_000);
    await stream.ended;
    expect(stream.seen.framesAfterClose).toBe(0);
    expect((stream.seen.endedAt ?? 0) - (stream.seen.closeAt ?? 0)).toBeLessThan(20_000);
  }, 60_000);
});
