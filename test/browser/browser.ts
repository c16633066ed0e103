import { existsSync, mkdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";

/** Debian's Chromium (`apt-get install -y chromium`); CI installs it in `.ci/run`. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/**
 * Browser tests run wherever Chromium is installed, and always in CI (where a missing
 * browser must fail, not skip). Elsewhere they are skipped with a message saying why.
 */
export const skipBrowserTests = !existsSync(CHROMIUM_PATH) && !process.env.CI;
if (skipBrowserTests) {
  console.warn(
    `Skipping the browser tests: ${CHROMIUM_PATH} is missing. Install it with \`apt-get install -y chromium\` (CI always runs them).`,
  );
}

/** Screenshots of every page, kept as test artifacts (gitignored), to look at after a run. */
export const SCREENSHOT_DIR = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../../test-artifacts/screenshots",
);

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * A headless Chromium with a fresh profile directory, removed on close; `javaScriptEnabled:
 * false` for a reader who turned script off (every page must work without it).
 */
export async function launchBrowser(
  options: { javaScriptEnabled?: boolean; timezoneId?: string } = {},
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), "skillport-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 860 },
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    ...(options.timezoneId && { timezoneId: options.timezoneId }),
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a full-page screenshot as `<name>.png` in the artifacts folder. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}
