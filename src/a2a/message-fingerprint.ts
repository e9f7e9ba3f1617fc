/**
 * When a message sent to the A2A face is "the same message" again: the same
 * agent, the same sender (a person, or the secret key) and the same
 * `messageId`, with the same content. Its fingerprint is the SHA-256 of the
 * message as the face read it (canonical JSON: key order does not matter;
 * fields the protocol does not know are not read, so they do not count). A
 * `messageId` that comes again with other content is refused: the protocol
 * lets an agent use the `messageId` to tell a message sent again, so one id
 * names one message.
 */
import { bytesToBase64Url } from "../base64";
import { canonicalJson } from "../canonical-json";
import type { A2aMessageKey } from "../db/a2a-messages";
import type { Message } from "./a2a-types";
import type { A2aCaller } from "./conversation";
import { RpcError, rpcErrorCodes } from "./json-rpc";

const encoder = new TextEncoder();

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

export async function messageFingerprint(message: Message): Promise<string> {
  return bytesToBase64Url(await sha256(canonicalJson(message)));
}

/** Whose `messageId`s these are: a person's own, or the secret key's (one sender, whoever holds it). */
export const senderOf = (caller: A2aCaller): string => (caller.kind === "secret" ? "secret" : caller.entityId);

export function reusedMessageId(messageId: string): RpcError {
  return new RpcError(
    rpcErrorCodes.invalidParams,
    `Invalid parameters: message.messageId: "${messageId}" was already used for a different message. Send a message again with its own messageId and the same content (that answers with the task it made); give a new message a new messageId`,
  );
}

/** A UUID-shaped id derived from the message: the push config a `SendMessage` gives without an id, so sending it again replaces that config instead of adding one. */
export async function pushConfigIdOf(key: A2aMessageKey): Promise<string> {
  const hex = Array.from((await sha256(canonicalJson(["a2a-push-config", key.agentId, key.sender, key.messageId]))).slice(0, 16), (byte) =>
    byte.toString(16).padStart(2, "0"),
  ).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
