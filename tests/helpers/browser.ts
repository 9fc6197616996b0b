/**
 * Headless Chromium for the browser tests: Debian's `chromium` driven by playwright-core
 * (../shared/spec/toolchain.md; never `npx playwright install`). Tests skip, naming the reason, when
 * the binary is missing; .ci/run installs the package.
 */
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

/** Why the browser tests cannot run here, or null when they can. */
export function browserSkipReason(): string | null {
  return existsSync(CHROMIUM) ? null : `${CHROMIUM} not found (apt-get install -y chromium)`;
}

export function launchChromium(): Promise<Browser> {
  // Root in CI and here: Chromium's sandbox needs a user namespace it does not get, so it is off.
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
}
