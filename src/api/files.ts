/**
 * `GET /api/files/download?key&space&expires&signature`: a file the gateway
 * keeps for agents (what file tools wrote, generated images), through a link
 * a tool signed (`share_file`, image parts). The link names the space it was
 * made for and when it expires; the caller is the secret key or a member of
 * that space (browsers may give `?publicKey=&token=`, as for streams). A
 * link that was changed, or has expired, is refused. Anything that could run
 * in the gateway's origin (HTML, SVG, scripts) is served as an attachment
 * under a sandboxing CSP.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { ApiError } from "../errors";
import { verifyFileLink } from "../security/file-links";
import { servableContentType } from "../tools";
import { requireSpaceAccess } from "./authorize";
import { createRouter } from "./context";
import { routeAccess } from "./route-access";
import { errorResponses, ErrorResponse, jsonContent } from "./schemas";

const query = (name: string, description: string) =>
  z
    .string()
    .min(1)
    .max(2_048)
    .openapi({ param: { name, in: "query" }, description });

const DownloadQuery = z.object({
  key: query("key", "The file's key, as the link gives it"),
  space: query("space", "The space whose members the link is for"),
  expires: z
    .string()
    .regex(/^\d{1,12}$/, "expires must be unix seconds")
    .openapi({ param: { name: "expires", in: "query" }, description: "When the link expires (unix seconds)" }),
  signature: query("signature", "The link's signature"),
});

/** Types a browser shows inline without running anything. */
const inlineTypes = /^(image\/(png|jpeg|gif|webp|avif)|text\/plain|application\/pdf|application\/json)$/;

export const fileRoutes = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/api/files/download",
    operationId: "downloadFile",
    summary: "Download a file through a signed link",
    tags: ["files"],
    ...routeAccess("secret-or-member", { queryCredentials: true }),
    description: "A file an agent's tools stored (files, images), through the signed, expiring link a tool made. Secret key, or a member of the link's space.",
    request: { query: DownloadQuery },
    responses: {
      200: { description: "The file", content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } } },
      ...errorResponses,
      410: jsonContent(ErrorResponse, "The link has expired"),
    },
  }),
  async (c) => {
    const { key, space, expires, signature } = c.req.valid("query");
    const link = await verifyFileLink(c.env, { key, space, expires: Number(expires), signature });
    if (!link.ok && link.reason === "invalid") throw new ApiError(403, "invalid_link", "This link is not one the gateway signed");
    await requireSpaceAccess(c.env, c.get("caller"), space);
    if (!link.ok) throw new ApiError(410, "link_expired", "This link has expired; ask for a new one");
    const object = await c.env.FILES.get(link.key);
    if (!object) throw new ApiError(404, "not_found", "The file is gone");
    // A content type stored before the media type rule (or otherwise unservable) is served as bytes, never a 500.
    const contentType = servableContentType(object.httpMetadata?.contentType);
    const mediaType = contentType.split(";")[0].trim().toLowerCase();
    const name = (link.key.split("/").pop() ?? "file").replace(/[^\w.-]+/g, "_");
    const headers = new Headers({
      "content-type": contentType,
      "content-length": String(object.size),
      "content-disposition": `${inlineTypes.test(mediaType) ? "inline" : "attachment"}; filename="${name}"`,
      "cache-control": "private, max-age=300",
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; sandbox",
      etag: object.httpEtag,
    });
    return new Response(object.body, { status: 200, headers }) as never;
  },
);
