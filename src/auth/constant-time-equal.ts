/**
 * Compares two secrets in constant time. Both sides are hashed first so the
 * comparison never leaks the length of the expected key.
 */
const encoder = new TextEncoder();

export async function constantTimeEqual(given: string, expected: string): Promise<boolean> {
  if (!expected) return false;
  const [a, b] = await Promise.all([crypto.subtle.digest("SHA-256", encoder.encode(given)), crypto.subtle.digest("SHA-256", encoder.encode(expected))]);
  return crypto.subtle.timingSafeEqual(a, b);
}
