/**
 * How long `ask_agent` waits for an agent's answer: the caller chooses, up
 * to a bound (an MCP request holds its connection while it waits).
 */
import { z } from "zod";

const max = 300;
const fallback = 60;

export const AskTimeout = {
  max,
  schema: z.number().int().min(1).max(max).default(fallback).describe(`Seconds to wait for the answer (default ${fallback}, at most ${max}); the run goes on past it`),
};
