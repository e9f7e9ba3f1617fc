/**
 * `@switchboard/react`: React bindings for the Switchboard client SDK
 * (`@switchboard/client`). A provider gives components a client; hooks show
 * a space live (`useSpace`), answer cards by code (`useToolHandler`) or by a
 * person (`useToolResult`), connect the account a card asks for
 * (`useConnectAccount`); `ToolCards` draws cards with your components.
 */
export { SwitchboardProvider, type SwitchboardProviderProps } from "./switchboard-provider.js";
export { useSwitchboard } from "./use-switchboard.js";
export { useMe } from "./use-me.js";
export type { MeSnapshot } from "./me-entry.js";
export { useSpace, type SendOptions, type SpaceView } from "./use-space.js";
export type { SpaceOptions } from "./space-entry.js";
export type { PendingCard, SpaceSnapshot } from "./space-snapshot.js";
export { useToolHandler, type ToolHandlerOptions, type ToolHandlerState } from "./use-tool-handler.js";
export { useToolResult, declinedByPerson, type ToolResultState } from "./use-tool-result.js";
export { useConnectAccount, type ConnectAccountState } from "./use-connect-account.js";
export { ToolCard, ToolCards, componentFor, type ToolCardComponent, type ToolCardProps, type ToolRegistry } from "./tool-card.js";
export { DefaultToolCard } from "./default-tool-card.js";
export { answerPermission, type AnswerPermission } from "./answer-permission.js";
