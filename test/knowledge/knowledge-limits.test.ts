/**
 * The knowledge tools at their schema maxima: 100 ids, keys or names to
 * delete, plus the agent id, is more than one D1 statement may bind.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DeleteGoalsInput, deleteGoals, listGoals, SetGoalsInput, setGoals } from "../../src/knowledge/goals";
import { DeleteMemoriesInput, deleteMemories, listMemories, SetMemoriesInput, setMemories } from "../../src/knowledge/memories";
import { DeletePlansInput, deletePlans, listPlans, SetPlansInput, setPlans } from "../../src/knowledge/plans";
import { getDatabase } from "../../src/db/client";
import { createAgent } from "../support/agents";
import { minimalAgentConfig } from "../support/minimal-agent-config";

async function knowledgeOf() {
  const { id } = await createAgent(minimalAgentConfig);
  return { database: getDatabase(env.DB), agentId: id, plansChanged: () => undefined };
}

const range = (count: number, from = 0) => Array.from({ length: count }, (_, index) => index + from);

describe("knowledge at the schema maxima", () => {
  it("sets 50 goals twice and deletes all 100 at once", async () => {
    const context = await knowledgeOf();
    for (const offset of [0, 50]) {
      const input = SetGoalsInput.parse({ goals: range(50, offset).map((index) => ({ description: `goal ${index}` })) });
      await setGoals(context, input);
    }
    const ids = (await listGoals(context)).map((goal) => goal.id);
    expect(ids).toHaveLength(100);
    expect(await deleteGoals(context, DeleteGoalsInput.parse({ ids }))).toEqual({ deleted: 100 });
    expect(await listGoals(context)).toEqual([]);
    expect(DeleteGoalsInput.safeParse({ ids: [...ids, "one more"] }).success).toBe(false);
  });

  it("sets 50 memories twice and deletes all 100 keys at once", async () => {
    const context = await knowledgeOf();
    for (const offset of [0, 50]) {
      await setMemories(context, SetMemoriesInput.parse({ memories: range(50, offset).map((index) => ({ key: `k${index}`, value: `v${index}` })) }));
    }
    const keys = range(100).map((index) => `k${index}`);
    expect(await listMemories(context)).toHaveLength(100);
    expect(await deleteMemories(context, DeleteMemoriesInput.parse({ keys }))).toEqual({ deleted: 100 });
    expect(await listMemories(context)).toEqual([]);
    expect(DeleteMemoriesInput.safeParse({ keys: [...keys, "k100"] }).success).toBe(false);
  });

  it("sets 20 plans five times and deletes all 100 names at once", async () => {
    const context = await knowledgeOf();
    for (const offset of [0, 20, 40, 60, 80]) {
      await setPlans(context, SetPlansInput.parse({ plans: range(20, offset).map((index) => ({ name: `p${index}`, instruction: "tick", everySeconds: 3600 })) }));
    }
    const names = range(100).map((index) => `p${index}`);
    expect(await listPlans(context)).toHaveLength(100);
    const deletedIds: string[] = [];
    const deleted = await deletePlans({ ...context, plansChanged: (_changed, ids) => void deletedIds.push(...ids) }, DeletePlansInput.parse({ names }));
    expect(deleted).toEqual({ deleted: 100 });
    expect(deletedIds).toHaveLength(100);
    expect(await listPlans(context)).toEqual([]);
    expect(SetPlansInput.safeParse({ plans: range(21).map((index) => ({ name: `p${index}`, instruction: "x", everySeconds: 60 })) }).success).toBe(false);
  });

  it("deletes only the agent's own entries, across statements", async () => {
    const [mine, theirs] = await Promise.all([knowledgeOf(), knowledgeOf()]);
    const keys = range(100).map((index) => `shared${index}`);
    for (const context of [mine, theirs]) {
      for (const offset of [0, 50]) {
        await setMemories(context, SetMemoriesInput.parse({ memories: keys.slice(offset, offset + 50).map((key) => ({ key, value: "x" })) }));
      }
    }
    expect(await deleteMemories(mine, DeleteMemoriesInput.parse({ keys }))).toEqual({ deleted: 100 });
    expect(await listMemories(theirs)).toHaveLength(100);
  });
});
