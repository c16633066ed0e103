import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PICKER_KEYS } from "../../src/http/dashboard/key-picker.js";
import type { HttpServer } from "../../src/http/server.js";
import type { Core } from "../core/make-core.js";
import { echo } from "../core/test-skills.js";
import { signedInCookie, signedInGet } from "./dashboard-session.js";
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

const get = (url: string) => signedInGet(http, core.skillport, url);

// Regression: the Usage and Executions pages' key field (a GET form, its hint pointing at
// API Keys, whose search takes secrets) took a pasted secret into the page's address, where
// browser history and proxy logs keep it, and showed it back as "No key has the id sk_live_…".
describe("a key filter given a secret", () => {
  const filters = [
    { path: "/dashboard/usage", param: "key", keep: "range=day" },
    { path: "/dashboard/executions", param: "key_id", keep: "status=completed" },
  ];

  it.each(filters)("on $path leads to the page filtered by that key's id", async ({ path, param, keep }) => {
    const { key, secret } = await core.skillport.keys.create({ name: "pasted", scope: "full-access" });
    for (const pasted of [secret, `Bearer ${secret}`, `SKILLPORT_API_KEY=${secret}`]) {
      const res = await get(`${path}?${param}=${encodeURIComponent(pasted)}&${keep}`);
      expect(res.statusCode, pasted).toBe(303);
      expect(res.headers.location).toBe(`${path}?${param}=${key.id}&${keep}`);
    }
    const filtered = await get(String((await get(`${path}?${param}=${secret}&${keep}`)).headers.location));
    expect(filtered.statusCode).toBe(200);
    expect(filtered.body).not.toContain("No key has the id");
  });

  it.each(filters)("on $path refuses one of no key without showing it", async ({ path, param, keep }) => {
    const { secret } = await core.skillport.keys.create({ name: "elsewhere", scope: "full-access" });
    await core.skillport.keys.create({ name: "here", scope: "full-access" });
    const other = secret.slice(0, -6);
    for (const pasted of [`${secret.slice(0, 12)}${"A".repeat(30)}`, other, "sk_live_partOfOne"]) {
      const res = await get(`${path}?${param}=${encodeURIComponent(pasted)}&${keep}`);
      expect(res.statusCode, pasted).toBe(404);
      expect(res.body).toContain("No key has this secret");
      expect(res.body).not.toContain(pasted.slice(8));
      expect(res.body).toContain(`href="${path}?${keep}"`);
    }
  });
});

// Found by the dashboard audit (session 39): the GET form's 303 came after the browser had
// asked for, and a proxy had logged, the address with the secret in it.
describe("a key filter's text field (more keys than a select lists)", () => {
  const filters: { path: string; param: string; keep: Record<string, string> }[] = [
    { path: "/dashboard/usage", param: "key", keep: { range: "day" } },
    { path: "/dashboard/executions", param: "key_id", keep: { status: "completed" } },
  ];

  it.each(filters)(
    "on $path is posted, and a secret in it never reaches an address",
    async ({ path, param, keep }) => {
      for (let made = 0; made <= PICKER_KEYS; made++) {
        await core.skillport.keys.create({ name: `bulk ${made}`, scope: "full-access" });
      }
      const { key, secret } = await core.skillport.keys.create({ name: "pasted", scope: "full-access" });
      const cookie = await signedInCookie(http, core.skillport);
      const page = await http.app.inject({ method: "GET", url: path, headers: { cookie } });
      expect(page.body).toMatch(new RegExp(`<form [^>]*method="post" action="${path}"`));
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? "";
      const post = (fields: Record<string, string>) =>
        http.app.inject({
          method: "POST",
          url: path,
          headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
          payload: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
        });
      const found = await post({ [param]: secret, ...keep });
      expect(found.statusCode).toBe(303);
      expect(found.headers.location).toBe(`${path}?${param}=${key.id}&${new URLSearchParams(keep)}`);
      const byId = await post({ [param]: key.id, ...keep, owner: "" });
      expect(byId.headers.location).toBe(`${path}?${param}=${key.id}&${new URLSearchParams(keep)}`);
      const unknown = await post({ [param]: `${secret.slice(0, 12)}${"A".repeat(30)}`, ...keep });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.body).toContain("No key has this secret");
      expect(unknown.body).not.toContain(secret.slice(12));
    },
  );
});
