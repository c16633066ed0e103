import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HttpServer } from "../../src/http/server.js";
import type { Core } from "../core/make-core.js";
import { echo } from "../core/test-skills.js";
import { signedInCookie } from "./dashboard-session.js";
import { inProcessServer } from "./in-process-api.js";

const DAY = 86_400;

const cleanups: (() => Promise<void>)[] = [];
let core: Core;
let http: HttpServer;
let cookie = "";

beforeEach(async () => {
  ({ core, server: http } = await inProcessServer([echo], cleanups));
  cookie = await signedInCookie(http, core.skillport);
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const get = (url: string) => http.app.inject({ method: "GET", url, headers: { cookie } });
/** The grace periods the roll page offers (by seconds) and the one it selects. */
function graceOptions(text: string) {
  const select = /<select id="grace"[\s\S]*?<\/select>/.exec(text)?.[0] ?? "";
  return {
    offered: [...select.matchAll(/<option value="(\d+)"/g)].map((m) => Number(m[1])),
    selected: Number(/<option value="(\d+)" selected/.exec(select)?.[1]),
  };
}
async function postRoll(id: string, graceSeconds: number | string) {
  const form = await get(`/dashboard/keys/${id}/roll`);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? "";
  return http.app.inject({
    method: "POST",
    url: `/dashboard/keys/${id}/roll`,
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    payload: new URLSearchParams({ _csrf: csrf, grace_seconds: String(graceSeconds) }).toString(),
  });
}

// Found by the dashboard audit (session 39): a form made by hand with an empty grace rolled
// the key and ended the previous one at once; other text was told "must be a number, not NaN".
describe("a roll posted without a grace period from the list", () => {
  it.each(["", "abc", "-5", "1e3"])("is refused with the form again, rolling nothing: %j", async (grace) => {
    const { key, secret } = await core.skillport.keys.create({ name: "kept", scope: "full-access" });
    const res = await postRoll(key.id, grace);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain("Choose how long the previous key keeps working, from the list.");
    expect(res.body).not.toContain("NaN");
    expect(await core.skillport.keys.replacementOf(key.id)).toBeUndefined();
    await expect(core.skillport.keys.authenticate(secret)).resolves.toMatchObject({ id: key.id });
  });
});

/** A key that stops working in a day, as a key rolled with a day's grace did before rolls were linked. */
async function keyDueInADay() {
  const expiresAt = new Date(core.clock.now() + DAY * 1000).toISOString();
  return (await core.skillport.keys.create({ name: "due soon", scope: "full-access", expiresAt })).key;
}

// Regression: the roll page of a key due to stop in a day offered every grace period with a
// day selected; sending it led to a bare "Request refused" page, the form and the choice
// gone, though a shorter grace would have rolled the key.
describe("rolling a key that is already due to stop", () => {
  it("offers only the grace periods that end before it stops, and says why", async () => {
    const { key } = await core.skillport.keys.create({ name: "lasting", scope: "full-access" });
    const fresh = graceOptions((await get(`/dashboard/keys/${key.id}/roll`)).body);
    expect(fresh).toEqual({ offered: [0, 3600, DAY, 7 * DAY, 30 * DAY], selected: DAY });

    const due = await keyDueInADay();
    const page = await get(`/dashboard/keys/${due.id}/roll`);
    expect(page.statusCode).toBe(200);
    expect(graceOptions(page.body)).toEqual({ offered: [0, 3600], selected: 3600 });
    expect(page.body).toContain("a key rolled from it will stop then too (a roll keeps the expiry)");
  });

  it("shows a refused grace on the roll form again, and rolls with one that fits", async () => {
    const key = await keyDueInADay();

    const refused = await postRoll(key.id, 7 * DAY);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toMatch(
      /<p class="alert alert-error" role="alert">The key key_\w+ already stops working at [^<]*, within the grace period: give a shorter grace.<\/p>/,
    );
    expect(graceOptions(refused.body).offered).toEqual([0, 3600]);
    expect(refused.body).toContain(`action="/dashboard/keys/${key.id}/roll"`);

    const rolled = await postRoll(key.id, 3600);
    expect(rolled.statusCode).toBe(303);
    expect(rolled.headers.location).toMatch(/^\/dashboard\/keys\/key_\w+\/secret$/);
  });
});

// A key is rolled once (KeyService.roll): rolling it again made a second replacement and cut
// the first roll's grace short. Its pages say which key replaced it, and the ways on.
describe("a key rolled before", () => {
  it("has no roll form: its roll page names the key that replaced it, with links to it and to revoking", async () => {
    const { key } = await core.skillport.keys.create({ name: "rolled", scope: "full-access" });
    const { key: replacement } = await core.skillport.keys.roll(key.id, { graceSeconds: DAY });

    const page = await get(`/dashboard/keys/${key.id}/roll`);
    expect(page.statusCode).toBe(409);
    expect(page.body).not.toContain('<select id="grace"');
    expect(page.body).toContain(
      `<code>${replacement.prefix}…${replacement.last4}</code> replaced it, and it stops working at`,
    );
    expect(page.body).toContain(`<a class="button button-primary" href="/dashboard/keys/${replacement.id}">`);
    expect(page.body).toContain(`href="/dashboard/keys/${key.id}/revoke"`);
  });

  it("answers a roll sent from a page shown before the first roll with the same page, rolling nothing", async () => {
    const { key } = await core.skillport.keys.create({ name: "rolled twice", scope: "full-access" });
    const form = await get(`/dashboard/keys/${key.id}/roll`);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? "";
    const { key: replacement } = await core.skillport.keys.roll(key.id, { graceSeconds: DAY });
    const keysBefore = (await core.skillport.keys.list()).length;

    const second = await http.app.inject({
      method: "POST",
      url: `/dashboard/keys/${key.id}/roll`,
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ _csrf: csrf, grace_seconds: "3600" }).toString(),
    });
    expect(second.statusCode).toBe(409);
    expect(second.body).toContain(`href="/dashboard/keys/${replacement.id}"`);
    expect((await core.skillport.keys.list()).length).toBe(keysBefore);
  });

  it("and the key that replaced it link each other on their pages", async () => {
    const { key } = await core.skillport.keys.create({ name: "linked", scope: "full-access" });
    const { key: replacement } = await core.skillport.keys.roll(key.id, { graceSeconds: DAY });

    const old = (await get(`/dashboard/keys/${key.id}`)).body;
    expect(old).toContain(
      `<div><dt>Replaced by</dt><dd><a href="/dashboard/keys/${replacement.id}"><code>${replacement.id}</code></a> (rolled at`,
    );
    expect(old).not.toContain("<dt>Replaces</dt>");
    const successor = (await get(`/dashboard/keys/${replacement.id}`)).body;
    expect(successor).toContain(
      `<div><dt>Replaces</dt><dd><a href="/dashboard/keys/${key.id}"><code>${key.id}</code></a> (rolled)</dd></div>`,
    );
    expect(successor).not.toContain("<dt>Replaced by</dt>");
  });
});
