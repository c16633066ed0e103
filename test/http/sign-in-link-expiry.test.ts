import { afterEach, describe, expect, it } from "vitest";
import { SIGN_IN_LINK_TTL_MS } from "../../src/core/admin/admin-auth.js";
import { ManualClock } from "../../src/core/clock.js";
import { buildHttpServer } from "../../src/http/server.js";
import { createLogger } from "../../src/logging.js";
import { makeCore } from "../core/make-core.js";
import { echo } from "../core/test-skills.js";
import { testHttpServerOptions } from "./http-server-options.js";

// Regression (audit 26, security; left open in session 26): the newest one-time link on the
// console stayed a live credential for ever.
describe("the dashboard's one-time sign-in link", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("expires after 15 minutes: opening it then says so and prints the next link, which works", async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 27, 12, 0, 0));
    const core = await makeCore([echo], { clock });
    cleanups.push(core.cleanup);
    const links: string[] = [];
    const server = buildHttpServer(core.skillport, {
      ...testHttpServerOptions(createLogger("silent")),
      announceSignInLink: (url) => links.push(url),
    });
    cleanups.push(() => server.close());
    server.open();
    expect(links).toHaveLength(1);
    const open = (link: string) =>
      server.app.inject({ method: "GET", url: link.replace(/^http:\/\/[^/]+/, "") });

    clock.advance(SIGN_IN_LINK_TTL_MS);
    const expired = await open(links[0] ?? "");
    expect(expired.statusCode).toBe(401);
    expect(expired.headers["set-cookie"]).not.toMatch(/skillport_session=[^;]/);
    expect(expired.body).toContain("This sign-in link has expired: a link works for 15 minutes.");
    expect(expired.body).toContain("A new one has just been printed on the server&#39;s console");
    expect(links).toHaveLength(2);

    clock.advance(SIGN_IN_LINK_TTL_MS - 1);
    const signedIn = await open(links[1] ?? "");
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe("/dashboard");
    expect(links).toHaveLength(3);
  });
});
