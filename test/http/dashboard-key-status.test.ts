import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { buildHttpServer } from "../../src/http/server.js";
import { createLogger } from "../../src/logging.js";
import { type Core, makeCore } from "../core/make-core.js";
import { signedInCookie } from "./dashboard-session.js";
import { testHttpServerOptions } from "./http-server-options.js";

const quiet = () => createLogger("error", new Writable({ write: (_chunk, _encoding, done) => done() }));
const clock = new ManualClock();
const DAY_MS = 86_400_000;

let core: Core;
let http: ReturnType<typeof buildHttpServer>;

beforeEach(async () => {
  clock.set(Date.UTC(2031, 0, 1)); // years after the machine's own clock
  core = await makeCore([], { clock });
  http = buildHttpServer(core.skillport, testHttpServerOptions(quiet()));
  http.open();
});
afterEach(async () => {
  await http.close();
  await core.cleanup();
});

/** A dashboard page, signed in now (a session lasts hours of the core's clock). */
async function page(url: string): Promise<string> {
  const cookie = await signedInCookie(http, core.skillport);
  return (await http.app.inject({ method: "GET", url, headers: { cookie } })).body;
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
