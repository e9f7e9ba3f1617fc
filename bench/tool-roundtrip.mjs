export const name = "tool-roundtrip"; export async function run() { throw new Error("todo"); }
