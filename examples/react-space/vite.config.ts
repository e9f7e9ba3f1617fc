/**
 * The example's Vite config: JSX by Vite's own transform (no plugin), and
 * `/api` (requests and the space's WebSocket) proxied to the gateway, so the
 * page and the API share one origin (the gateway sends no CORS headers).
 * The gateway is SWITCHBOARD_URL, default `npm run dev`'s http://localhost:8787.
 */
import { defineConfig, type ProxyOptions } from "vite";

const gateway = process.env.SWITCHBOARD_URL ?? "http://localhost:8787";
const proxy: Record<string, ProxyOptions> = { "/api": { target: gateway, ws: true, changeOrigin: true } };

export default defineConfig({
  oxc: { jsx: { runtime: "automatic" } },
  server: { proxy },
  preview: { proxy },
});
