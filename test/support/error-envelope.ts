/** Asserts the error envelope every refusal carries: `{"error": {"code": "snake_case", "message": "…"}}`, its code one of `errorCodes`. */
import { expect } from "vitest";
import { errorCodes } from "../../src/errors";

export const snakeCaseCode = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

export type ErrorBody = { error: { code: string; message: string; details?: { path: string; message: string }[] } };

export function expectErrorEnvelope(body: unknown, code?: string): asserts body is ErrorBody {
  expect(body).toEqual({
    error: expect.objectContaining({ code: expect.stringMatching(snakeCaseCode), message: expect.any(String) }),
  });
  const { error } = body as ErrorBody;
  expect(error.message.length).toBeGreaterThan(0);
  expect(errorCodes, `"${error.code}" is not in errorCodes (src/errors.ts)`).toContain(error.code);
  if (code !== undefined) expect(error.code).toBe(code);
}

/** Reads a response that must be an error: JSON content type and the envelope. */
export async function readErrorEnvelope(response: Response, code?: string): Promise<ErrorBody> {
  expect(response.headers.get("content-type") ?? "").toContain("application/json");
  const body: unknown = await response.json();
  expectErrorEnvelope(body, code);
  return body;
}
