/**
 * The built-in tools (`spaces`, `knowledge` and the built-in catalogue) as one
 * provider. They are made by `createBuiltinTools` as they are: this provider
 * neither knows nor changes which built-ins exist.
 */
import { createBuiltinTools } from "../builtins/create-builtin-tools";
import { SerialQueue } from "../engine/serial-queue";
import type { ToolProvider } from "./tool-provider";

export const builtinProviderName = "builtin";

export function builtinProvider(): ToolProvider {
  return {
    name: builtinProviderName,
    kind: "builtin",
    async load(context) {
      const tools = createBuiltinTools(context, new SerialQueue());
      return { tools: Object.entries(tools).map(([name, tool]) => ({ kind: "raw" as const, name, origin: name, tool })) };
    },
  };
}
