/**
 * The unit tests import the gateway's webhook signer (src/webhooks/webhook-signature.ts)
 * to check the SDK's verifier against it; its module also holds a Workers-only
 * comparison (`crypto.subtle.timingSafeEqual`), which the tests never call.
 */
interface SubtleCrypto {
  timingSafeEqual(a: ArrayBuffer | ArrayBufferView, b: ArrayBuffer | ArrayBufferView): boolean;
}
