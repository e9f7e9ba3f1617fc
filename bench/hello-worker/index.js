/**
 * The start-up floor for `npm run bench -- --only startup`: the least a
 * Worker can be. bench/startup.mjs runs it in a fresh workerd with the same
 * compatibility date and flags as the gateway and times spawn → first answer.
 */
export default {
  fetch: () => new Response("ok"),
};
