import { describe, expect, it } from "vitest";
import { chunked, maxBoundParameters } from "../../src/db/chunked";

const ids = (count: number) => Array.from({ length: count }, (_, index) => `id${index}`);

describe("chunked", () => {
  it("keeps every statement within D1's 100 bound parameters", () => {
    expect(maxBoundParameters).toBe(100);
    expect(chunked(ids(100)).map((piece) => piece.length)).toEqual([100]);
    expect(chunked(ids(101)).map((piece) => piece.length)).toEqual([100, 1]);
    expect(chunked(ids(100), { otherParameters: 1 }).map((piece) => piece.length)).toEqual([99, 1]);
    expect(chunked(ids(1000), { parametersPerItem: 2 }).map((piece) => piece.length)).toEqual(Array(20).fill(50));
  });

  it("keeps order and loses nothing", () => {
    const list = ids(333);
    expect(chunked(list, { otherParameters: 3 }).flat()).toEqual(list);
  });

  it("gives no pieces for no items, and refuses a statement with no room", () => {
    expect(chunked([])).toEqual([]);
    expect(() => chunked(ids(1), { otherParameters: 100 })).toThrow("no room");
  });
});
