import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import type { HttpServer } from "../../src/http/server.js";
import type { Core } from "../core/make-core.js";
import { signedInGet } from "./dashboard-session.js";
import { inProcessServer } from "./in-process-api.js";

const clock = new ManualClock();
const DAY_MS = 86_400_000;

const cleanups: (() => Promise<void>)[] = [];
let core: Core;
let http: HttpServer;

beforeEach(async () => {
  clock.set(Date.UTC(2031, 0, 1)); // years after the machine's own clock
  ({ core, server: http } = await inProcessServer([], cleanups, { clock }));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A dashboard page, signed in now (a session lasts hours of the core's clock). */
async function page(url: string): Promise<string> {
  return (await signedInGet(http, core.skillport, url)).body;
}

// The dashboard worked a key's status out with Date.now(), while the core authenticates by
// its own clock: a key the core refuses as expired was shown active.
describe("the dashboard's key status", () => {
  it("is the core's, by the core's clock", async () => {
    const { key } = await core.createKey({ name: "soon gone", expiresAt: "2031-01-02T00:00:00Z" });
    clock.set(Date.UTC(2031, 0, 1) + 2 * DAY_MS);

    const detail = await page(`/dashboard/keys/${key.id}`);
    expect(detail).toMatch(/badge[^>]*>expired</);
    expect(detail).not.toContain("Edit key");
    const list = await page("/dashboard/keys");
    expect(list).toMatch(/badge[^>]*>expired</);
    expect(list).not.toMatch(/badge[^>]*>active</);
  });
});
