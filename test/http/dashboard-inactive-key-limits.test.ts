import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HttpServer } from "../../src/http/server.js";
import type { Core } from "../core/make-core.js";
import { echo } from "../core/test-skills.js";
import { signedInGet } from "./dashboard-session.js";
import { inProcessServer } from "./in-process-api.js";

const cleanups: (() => Promise<void>)[] = [];
let core: Core;
let http: HttpServer;

beforeEach(async () => {
  ({ core, server: http } = await inProcessServer([echo], cleanups));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function page(url: string): Promise<string> {
  const res = await signedInGet(http, core.skillport, url);
  expect(res.statusCode, url).toBe(200);
  return res.body;
}

/** The "Limits now" panel of a key's page, or of the Usage page filtered by a key. */
const limitsPanel = (text: string) => /<h2>Limits now[^<]*<\/h2>([\s\S]*?)<\/section>/.exec(text)?.[1] ?? "";

// Regression: a revoked or expired key's "Limits now" read "60 left · resets in 42 s", as
// if it could still make requests, and an expired key's page had no word that it is refused.
describe("the limits of a key that no longer works", () => {
  it("are said to be none, on the key's page and the Usage page, with an alert on the key's page", async () => {
    const { key: revoked } = await core.skillport.keys.create({ name: "revoked", scope: "full-access" });
    await core.skillport.keys.revoke(revoked.id);
    const { key: rolled } = await core.skillport.keys.create({ name: "rolled", scope: "full-access" });
    await core.skillport.keys.roll(rolled.id, { graceSeconds: 0 });
    for (const [key, status] of [
      [revoked, "revoked"],
      [rolled, "expired"],
    ] as const) {
      const detail = await page(`/dashboard/keys/${key.id}`);
      expect(detail).toContain(
        `<p class="alert alert-error" role="status">This key is ${status}: every request with it is refused.</p>`,
      );
      for (const text of [detail, await page(`/dashboard/usage?key=${key.id}`)]) {
        const panel = limitsPanel(text);
        expect(panel).toContain(`None: the key is ${status}, so every request with it is refused.`);
        expect(panel).not.toMatch(/left · resets in/);
      }
    }
  });

  it("stay the plan's windows for a key that works", async () => {
    const { key } = await core.skillport.keys.create({ name: "working", scope: "full-access" });
    for (const text of [
      await page(`/dashboard/keys/${key.id}`),
      await page(`/dashboard/usage?key=${key.id}`),
    ]) {
      expect(limitsPanel(text)).toMatch(/60 left · resets in/);
      expect(text).not.toContain("every request with it is refused");
    }
  });
});
