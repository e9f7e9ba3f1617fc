/**
 * The prebuilt actions a tool config may name (`executionType: "prebuilt"`,
 * `execution.action`): the knowledge actions under their prebuilt names,
 * then the search and space actions.
 * Listed here so that a config is checked without loading the handlers; the
 * registry (`prebuilt/prebuilt-registry.ts`) refuses to load when its
 * handlers and this list differ.
 */
export const prebuiltActions: readonly string[] = [
  "setGoals",
  "deleteGoals",
  "getGoals",
  "setMemories",
  "deleteMemories",
  "getMemories",
  "setPlans",
  "deletePlans",
  "getPlans",
  "searchKnowledge",
  "sendNotification",
  "getSpaceContext",
  "updateSpaceMetadata",
];

/** Prebuilt actions that only read (a cache never hides a write). */
export const readOnlyPrebuiltActions: ReadonlySet<string> = new Set(["getGoals", "getMemories", "getPlans", "searchKnowledge", "getSpaceContext"]);
