/**
 * Hooks into the model's stream of tool calls: the cycle calls every
 * observer as tool input streams in and as calls complete, so streaming
 * features (send_message text deltas, visible tool cards) stay in the tool
 * layer instead of the loop.
 */
export type ToolStreamObserver = {
  inputStart?(toolCallId: string, toolName: string): void;
  inputDelta?(toolCallId: string, toolName: string, inputText: string): void;
  call?(toolCallId: string, toolName: string, input: unknown): void;
};
