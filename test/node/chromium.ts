/** Finds and launches the machine's Chromium for the browser tests (Debian's `chromium` package in CI). */
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

const candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable"];

export function chromiumPath(): string {
  const path = process.env.CHROMIUM_PATH ?? candidates.find((candidate) => existsSync(candidate));
  if (!path || !existsSync(path)) {
    throw new Error(
      `No Chromium for the browser tests (looked at ${process.env.CHROMIUM_PATH ?? candidates.join(", ")}). Install it with \`apt-get update && apt-get install -y chromium\` (.ci/run does), or set CHROMIUM_PATH.`,
    );
  }
  return path;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    timeout: 60_000,
  });
}
