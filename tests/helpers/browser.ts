/**
 * Headless Chromium for the browser tests: Debian's `chromium` driven by playwright-core
 * (../shared/spec/toolchain.md; never `npx playwright install`). Tests skip, naming the reason, when
 * the binary or the package is missing; .ci/run installs the Debian package, `npm ci` the other.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import type { Browser } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

/** Why the browser tests cannot run here, or null when they can. */
export function browserSkipReason(): string | null {
  if (!existsSync(CHROMIUM)) return `${CHROMIUM} not found (apt-get install -y chromium)`;
  try {
    createRequire(import.meta.url).resolve("playwright-core");
  } catch {
    return "the playwright-core package is not installed (npm install)";
  }
  return null;
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  // Root in CI and here: Chromium's sandbox needs a user namespace it does not get, so it is off.
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
}
