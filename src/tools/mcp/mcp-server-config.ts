/** An MCP server an agent may use (contract §5 `mcp.servers`): where it is and which of its tools are allowed. */
import { z } from "@hono/zod-openapi";
import { OutboundUrl } from "../../security/url-policy";
import { checkHeaderSecrets } from "../gateway/check-gateway-config";

export const McpServerConfig = z
  .object({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,32}$/),
    url: OutboundUrl,
    transport: z.enum(["http", "sse"]).default("http"),
    allowedTools: z.array(z.string().min(1).max(64)).max(256).optional(),
    headers: z.record(z.string().max(256), z.string().max(8192)).optional(),
  })
  .strict()
  .superRefine((server, context) => {
    for (const problem of checkHeaderSecrets(server.headers)) context.addIssue({ code: "custom", path: problem.path, message: problem.message });
  });

export type McpServerConfig = z.infer<typeof McpServerConfig>;
