import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSecret } from "../../src/core/keys/secret.js";
import {
  apiRequest,
  type CreatedKey,
  createKey,
  expectError,
  runCli,
  startServer,
  type TestServer,
} from "./harness.js";

const ADMIN_TOKEN = "contract-admin-token-0123456789";

/** The `Set-Cookie` header of `name`, or undefined. */
function setCookie(headers: Headers, name: string): string | undefined {
  return headers.getSetCookie().find((cookie) => cookie.startsWith(`${name}=`));
}

/**
 * The dashboard's sign-in with a configured SKILLPORT_ADMIN_TOKEN, its cookies and headers
 * (the browser tests cover the one-time link and the pages themselves).
 */
describe("contract: dashboard sign-in with SKILLPORT_ADMIN_TOKEN", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({
      env: { SKILLPORT_ADMIN_TOKEN: ADMIN_TOKEN, SKILLPORT_TRUST_PROXY: "true" },
    });
  });
  afterAll(() => server?.stop());

  /** GET the sign-in page: its double-submit cookie and the form's matching hidden field. */
  const signInForm = async (headers: Record<string, string> = {}) => {
    const page = await apiRequest(server.baseUrl, "GET", "/dashboard/sign-in", { headers });
    const cookie = setCookie(page.headers, "skillport_sign_in")?.split(";")[0] ?? "";
    const field = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? "";
    return { page, cookie, field };
  };
  const postSignIn = (body: string, headers: Record<string, string>) =>
    apiRequest(server.baseUrl, "POST", "/dashboard/sign-in", {
      rawBody: body,
      contentType: "application/x-www-form-urlencoded",
      headers,
      redirect: "manual",
    });

  /** A signed-in session's cookie (`name=value`). */
  const signedInSession = async () => {
    const { cookie, field } = await signInForm();
    const signedIn = await postSignIn(`_csrf=${field}&token=${ADMIN_TOKEN}`, { cookie });
    return setCookie(signedIn.headers, "skillport_session")?.split(";")[0] ?? "";
  };

  it("prints no sign-in link when a token is configured", () => {
    expect(server.logs()).not.toMatch(/sign-in\?token=/);
  });

  it("signs in with the token: an HttpOnly, SameSite=Strict session cookie for /dashboard only", async () => {
    const { page, cookie, field } = await signInForm();
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toMatch(/script-src 'self'/);
    expect(page.headers.get("content-security-policy")).not.toMatch(/unsafe-inline/);
    const res = await postSignIn(`_csrf=${field}&token=${ADMIN_TOKEN}`, { cookie });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard");
    const session = setCookie(res.headers, "skillport_session") ?? "";
    expect(session).toMatch(/; Path=\/dashboard/);
    expect(session).toMatch(/; HttpOnly/);
    expect(session).toMatch(/; SameSite=Strict/);
    expect(session).not.toMatch(/; Secure/);
    const keys = await apiRequest(server.baseUrl, "GET", "/dashboard/keys", {
      headers: { cookie: session.split(";")[0] ?? "" },
    });
    expect(keys.status).toBe(200);
    expect(keys.headers.get("cache-control")).toBe("no-store");
  });

  it("takes the token pasted with the spaces or line end a terminal selection brings, or inside the whole link", async () => {
    for (const pasted of [
      ` ${ADMIN_TOKEN}\n`,
      `${ADMIN_TOKEN}\t`,
      `http://127.0.0.1:8080/dashboard/sign-in?token=${ADMIN_TOKEN} `,
    ]) {
      const { cookie, field } = await signInForm();
      const res = await postSignIn(`_csrf=${field}&token=${encodeURIComponent(pasted)}`, { cookie });
      expect(res.status, JSON.stringify(pasted)).toBe(303);
      expect(setCookie(res.headers, "skillport_session")).toMatch(/^skillport_session=/);
    }
    const { cookie, field } = await signInForm();
    const inner = await postSignIn(
      `_csrf=${field}&token=${encodeURIComponent(`${ADMIN_TOKEN.slice(0, 8)} ${ADMIN_TOKEN.slice(8)}`)}`,
      { cookie },
    );
    expect(inner.status).toBe(401);
  });

  it("marks the session cookie Secure behind https", async () => {
    const https = { "x-forwarded-proto": "https" };
    const { cookie, field } = await signInForm(https);
    const res = await postSignIn(`_csrf=${field}&token=${ADMIN_TOKEN}`, { cookie, ...https });
    expect(res.status).toBe(303);
    expect(setCookie(res.headers, "skillport_session")).toMatch(/; Secure/);
  });

  it("refuses a wrong token, and a sign-in form without its CSRF value", async () => {
    const { cookie, field } = await signInForm();
    const wrong = await postSignIn(`_csrf=${field}&token=not-the-token`, { cookie });
    expect(wrong.status).toBe(401);
    // contract.md: every 401 has WWW-Authenticate (the dashboard's had none: audit, session 38).
    expect(wrong.headers.get("www-authenticate")).toBe('Bearer realm="skillport"');
    // So has a form posted without a session.
    const signedOut = await apiRequest(server.baseUrl, "POST", "/dashboard/keys/new", {
      rawBody: "name=x",
      contentType: "application/x-www-form-urlencoded",
      redirect: "manual",
    });
    expect(signedOut.status).toBe(401);
    expect(signedOut.headers.get("www-authenticate")).toBe('Bearer realm="skillport"');
    expect(setCookie(wrong.headers, "skillport_session")).toBeUndefined();
    const forged = await postSignIn(`_csrf=forged&token=${ADMIN_TOKEN}`, { cookie });
    expect(forged.status).toBe(403);
    const cookieless = await postSignIn(`_csrf=${field}&token=${ADMIN_TOKEN}`, {});
    expect(cookieless.status).toBe(403);
    const crossSite = await postSignIn(`_csrf=${field}&token=${ADMIN_TOKEN}`, {
      cookie,
      origin: "https://evil.example",
    });
    expect(crossSite.status).toBe(403);
  });

  it("takes the configured token only through the form: in an address it would outlive its use", async () => {
    const res = await apiRequest(server.baseUrl, "GET", `/dashboard/sign-in?token=${ADMIN_TOKEN}`, {
      redirect: "manual",
    });
    expect(res.status).toBe(400);
    expect(setCookie(res.headers, "skillport_session")).toBeUndefined();
    expect(res.text).toContain("Enter the administrator token in this form");
    expect(res.text).not.toContain(ADMIN_TOKEN);
  });

  it("returns to the page that asked for a session, never to another site; signed in, the form says so", async () => {
    const asked = await apiRequest(server.baseUrl, "GET", "/dashboard/keys/key_abc?from=x", {
      redirect: "manual",
    });
    expect(asked.status).toBe(303);
    expect(asked.headers.get("location")).toBe(
      "/dashboard/sign-in?next=%2Fdashboard%2Fkeys%2Fkey_abc%3Ffrom%3Dx",
    );
    const withNext = await apiRequest(server.baseUrl, "GET", "/dashboard/sign-in?next=%2Fdashboard%2Fusage");
    expect(withNext.text).toContain('name="next" value="/dashboard/usage"');

    const signInTo = async (next: string) => {
      const { cookie, field } = await signInForm();
      const res = await postSignIn(`_csrf=${field}&token=${ADMIN_TOKEN}&next=${encodeURIComponent(next)}`, {
        cookie,
      });
      expect(res.status, next).toBe(303);
      return res;
    };
    expect((await signInTo("/dashboard/usage?range=7d")).headers.get("location")).toBe(
      "/dashboard/usage?range=7d",
    );
    // Regression (audit 22, security #4): a character a header cannot carry answered 500,
    // with no session, and spent a one-time link.
    const unicode = await signInTo("/dashboard/skills/✓?q=café%20au%20lait");
    expect(unicode.headers.get("location")).toBe("/dashboard/skills/%E2%9C%93?q=caf%C3%A9%20au%20lait");
    expect(setCookie(unicode.headers, "skillport_session")).toBeDefined();
    for (const elsewhere of [
      "//evil.example/dashboard",
      "https://evil.example/dashboard",
      "/dashboard//evil.example",
      "/v1/skills",
      "/dashboard\\evil",
    ]) {
      expect((await signInTo(elsewhere)).headers.get("location"), elsewhere).toBe("/dashboard");
    }

    // Signed in already, the sign-in page shows the form with a note: no redirect that a
    // replica without this session would send straight back.
    const session = setCookie((await signInTo("")).headers, "skillport_session")?.split(";")[0] ?? "";
    const again = await apiRequest(server.baseUrl, "GET", "/dashboard/sign-in", {
      headers: { cookie: session },
      redirect: "manual",
    });
    expect(again.status).toBe(200);
    expect(again.text).toContain("You are signed in.");
  });

  it("answers the key and skill searches whatever the address holds: a term too long, or given twice", async () => {
    const session = await signedInSession();
    await createKey(server.dataDir, { name: "findable-key" });
    const get = (path: string) => apiRequest(server.baseUrl, "GET", path, { headers: { cookie: session } });

    const found = await get("/dashboard/keys?q=findable");
    expect(found.status).toBe(200);
    expect(found.text).toContain("findable-key");
    expect(found.text).toContain('maxlength="200"');
    // A term past the box's length (a hand-made address) is no search; of two, the first counts.
    const tooLong = await get(`/dashboard/keys?q=${"a".repeat(250)}`);
    expect(tooLong.status).toBe(200);
    expect(tooLong.text).toContain("findable-key");
    const twice = await get("/dashboard/keys?q=nothing-matches&q=findable");
    expect(twice.status).toBe(200);
    expect(twice.text).toContain("No key matches “nothing-matches”");
    const skills = await get(`/dashboard/skills?q=${"b".repeat(1001)}`);
    expect(skills.status).toBe(200);
    expect(skills.text).toContain("math.evaluate");
  });

  // contract.md, "API keys": "Listings show a prefix and the last four characters only."
  it("shows a key in the list and on its page by its prefix and last four characters, nothing between", async () => {
    const session = await signedInSession();
    const key = await createKey(server.dataDir, { name: "masked-in-listings" });
    const tag = "sk_live_";
    const hidden = key.secret.slice(tag.length + 4, -4);
    for (const path of ["/dashboard/keys", `/dashboard/keys/${key.id}`]) {
      const page = await apiRequest(server.baseUrl, "GET", path, { headers: { cookie: session } });
      expect(page.status, path).toBe(200);
      expect(page.text, path).toContain(`${key.secret.slice(0, tag.length + 4)}…${key.secret.slice(-4)}`);
      // No run of the hidden part longer than a listing's last four could be by chance.
      for (let at = 0; at + 6 <= hidden.length; at++) {
        expect(page.text.includes(hidden.slice(at, at + 6)), `${path}: ${hidden.slice(at, at + 6)}`).toBe(
          false,
        );
      }
    }
  });

  it("finds the key a pasted secret or its masked form belongs to, and never shows a secret back", async () => {
    const session = await signedInSession();
    const key = await createKey(server.dataDir, { name: "pasted-key" });
    await createKey(server.dataDir, { name: "other-key" });
    const get = (path: string) => apiRequest(server.baseUrl, "GET", path, { headers: { cookie: session } });
    const randomPart = key.secret.slice(12, -4);

    const bySecret = await apiRequest(server.baseUrl, "GET", `/dashboard/keys?q=${key.secret}`, {
      headers: { cookie: session },
      redirect: "manual",
    });
    expect(bySecret.status).toBe(303);
    expect(bySecret.headers.get("location")).toBe(`/dashboard/keys/${key.id}`);

    // Without its public sk_live_ tag, the rest is still the whole secret: it opens the key too.
    const untagged = await apiRequest(server.baseUrl, "GET", `/dashboard/keys?q=${key.secret.slice(8)}`, {
      headers: { cookie: session },
      redirect: "manual",
    });
    expect(untagged.headers.get("location")).toBe(`/dashboard/keys/${key.id}`);

    const masked = await get(
      `/dashboard/keys?q=${encodeURIComponent(`${key.secret.slice(0, 12)}…${key.secret.slice(-4)}`)}`,
    );
    expect(masked.text).toContain("pasted-key");
    expect(masked.text).not.toContain("other-key");

    // A secret of no key (checksum-valid), a secret cut short or mistyped: not shown.
    const noKeys = generateSecret("production");
    for (const [term, message] of [
      [noKeys, "No key has this secret"],
      [key.secret.slice(0, -3), "No key matches what looks like part of a key's secret"],
      [`x ${key.secret.slice(0, -1)}`, "No key matches what looks like part of a key's secret"],
    ] as const) {
      const page = await get(`/dashboard/keys?q=${encodeURIComponent(term)}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain(message);
      expect(page.text).not.toContain(randomPart);
      expect(page.text).not.toContain(noKeys.slice(12, -4));
    }
    const skills = await get(`/dashboard/skills?q=${encodeURIComponent(`what is ${key.secret}`)}`);
    expect(skills.status).toBe(200);
    expect(skills.text).toContain("not searched for or shown");
    expect(skills.text).not.toContain(randomPart);
    // The prefix every listing shows is still a search, shown back.
    const prefix = await get(`/dashboard/keys?q=${key.secret.slice(0, 12)}`);
    expect(prefix.text).toContain("pasted-key");
    expect(prefix.text).toContain(`value="${key.secret.slice(0, 12)}"`);
  });

  it("searches by a form post, so a pasted secret never reaches an address; what surrounded it is ignored", async () => {
    const session = await signedInSession();
    const key = await createKey(server.dataDir, { name: "posted-key" });
    const list = await apiRequest(server.baseUrl, "GET", "/dashboard/keys", { headers: { cookie: session } });
    const form = /<form[^>]*role="search"[^>]*>/.exec(list.text)?.[0] ?? "";
    expect(form).toContain('method="post"');
    expect(form).toContain('action="/dashboard/keys/search"');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(list.text)?.[1] ?? "";
    const search = (q: string, order = "") =>
      apiRequest(server.baseUrl, "POST", "/dashboard/keys/search", {
        rawBody: `_csrf=${encodeURIComponent(csrf)}&q=${encodeURIComponent(q)}${order}`,
        contentType: "application/x-www-form-urlencoded",
        headers: { cookie: session },
        redirect: "manual",
      });

    // As copied from a curl line, a JSON value or an environment file: the key's page.
    for (const pasted of [
      key.secret,
      `Bearer ${key.secret}`,
      `"${key.secret}",`,
      `SKILLPORT_API_KEY=${key.secret}`,
    ]) {
      const found = await search(pasted);
      expect(found.status, pasted).toBe(303);
      expect(found.headers.get("location")).toBe(`/dashboard/keys/${key.id}`);
    }
    // Part of a secret is answered in place: it is in no address and not on the page.
    const part = await search(key.secret.slice(0, 30));
    expect(part.status).toBe(200);
    expect(part.text).toContain("No key matches what looks like part of a key's secret");
    expect(part.text).not.toContain(key.secret.slice(12, 30));
    // Other text goes to the list's own address, order kept, to bookmark or come Back to.
    const text = await search("posted", "&sort=name&dir=asc");
    expect(text.status).toBe(303);
    expect(text.headers.get("location")).toBe("/dashboard/keys?q=posted&sort=name&dir=asc");
    // Without the session's CSRF token the search is refused, like every other form.
    const forged = await apiRequest(server.baseUrl, "POST", "/dashboard/keys/search", {
      rawBody: "_csrf=forged&q=posted",
      contentType: "application/x-www-form-urlencoded",
      headers: { cookie: session },
      redirect: "manual",
    });
    expect(forged.status).toBe(403);
  });

  it("ties a refused field's error to its input beside its hint, for screen readers", async () => {
    const session = await signedInSession();
    const form = await apiRequest(server.baseUrl, "GET", "/dashboard/keys/new", {
      headers: { cookie: session },
    });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1] ?? "";
    const refused = await apiRequest(server.baseUrl, "POST", "/dashboard/keys", {
      rawBody: `_csrf=${encodeURIComponent(csrf)}&name=n&scope=read-only&owner=${encodeURIComponent("no spaces!")}&expires_on=2027-13-45`,
      contentType: "application/x-www-form-urlencoded",
      headers: { cookie: session },
    });
    expect(refused.status).toBe(400);
    for (const [id, hint] of [
      ["owner", "owner-hint"],
      ["expires_on", "expires-hint"],
    ]) {
      const input = new RegExp(`<input id="${id}"[^>]*>`).exec(refused.text)?.[0] ?? "";
      expect(input.match(/aria-describedby=/g), input).toHaveLength(1);
      expect(input).toContain(`aria-describedby="${hint} ${id}-error"`);
      expect(input).toContain('aria-invalid="true"');
      expect(refused.text).toContain(`id="${id}-error"`);
    }
  });

  it("answers an address naming no key 404, and offers no form for a key that no longer works", async () => {
    const session = await signedInSession();
    const get = (path: string) => apiRequest(server.baseUrl, "GET", path, { headers: { cookie: session } });
    for (const path of [
      "/dashboard/keys/key_nosuchkey",
      "/dashboard/keys/key_nosuchkey/edit",
      "/dashboard/keys/x/roll",
    ]) {
      const missing = await get(path);
      expect(missing.status, path).toBe(404);
      expect(missing.text).toContain("No API key has");
    }
    const key = await createKey(server.dataDir, { name: "gone-key" });
    expect((await runCli(["keys", "revoke", key.id, "--data-dir", server.dataDir])).code).toBe(0);
    for (const action of ["edit", "roll", "revoke"]) {
      const page = await get(`/dashboard/keys/${key.id}/${action}`);
      expect(page.status, action).toBe(409);
      expect(page.text).toContain("is revoked: it cannot be edited, rolled or revoked");
      expect(page.text).not.toContain('name="_csrf"><button type="submit" class="button button-danger"');
      expect(page.text).not.toMatch(new RegExp(`action="/dashboard/keys/${key.id}/${action}"`));
    }
    expect((await get(`/dashboard/keys/${key.id}`)).status).toBe(200);
  });

  it("refuses a form over 64 KiB with a page naming that limit, and reads one under it", async () => {
    const { cookie, field } = await signInForm();
    const padding = "x".repeat(64 * 1024);
    const over = await postSignIn(`_csrf=${field}&token=${ADMIN_TOKEN}&pad=${padding}`, { cookie });
    expect(over.status).toBe(413);
    expect(over.text).toContain("The request body is too large: the limit is 65536 bytes.");
    const under = await postSignIn(`_csrf=${field}&token=not-the-token&pad=${padding.slice(1000)}`, {
      cookie,
    });
    expect(under.status).toBe(401);
  });

  it("keeps /v1 answering JSON errors: form bodies and cookies mean nothing there", async () => {
    const res = await apiRequest(server.baseUrl, "POST", "/v1/discover", {
      rawBody: "query=x",
      contentType: "application/x-www-form-urlencoded",
    });
    expectError(res, 401, "missing_api_key");
  });
});

/** Wrong sign-in tokens and bad API keys from one address, at a low limit of failed authentications. */
describe("contract: the dashboard sign-in's limit of failed sign-ins", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({
      env: {
        SKILLPORT_ADMIN_TOKEN: ADMIN_TOKEN,
        SKILLPORT_TRUST_PROXY: "true",
        SKILLPORT_FAILED_AUTH_PER_MINUTE: "5",
      },
    });
  });
  afterAll(() => server?.stop());

  const signInForm = async (headers: Record<string, string>) => {
    const page = await apiRequest(server.baseUrl, "GET", "/dashboard/sign-in", { headers });
    const cookie = setCookie(page.headers, "skillport_sign_in")?.split(";")[0] ?? "";
    const field = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? "";
    return { cookie, field };
  };
  const postSignIn = (body: string, headers: Record<string, string>) =>
    apiRequest(server.baseUrl, "POST", "/dashboard/sign-in", {
      rawBody: body,
      contentType: "application/x-www-form-urlencoded",
      headers,
      redirect: "manual",
    });

  // Regression (audit 26 #1): bad API keys from the administrator's address locked the right
  // token out, and the page said only "Rate limit exceeded: 30 requests per 60 seconds".
  it("signs in from an address whose bad API keys are limited; wrong tokens get a limit of their own that says the wait", async () => {
    const agent = { "x-forwarded-for": "10.26.1.1" };
    let keysStatus = 0;
    for (let i = 0; i < 12 && keysStatus !== 429; i++) {
      const res = await apiRequest(server.baseUrl, "POST", "/v1/discover", {
        json: { query: "x" },
        key: generateSecret("production"),
        headers: agent,
      });
      keysStatus = res.status;
    }
    expect(keysStatus).toBe(429);
    const { cookie, field } = await signInForm(agent);
    const signedIn = await postSignIn(`_csrf=${field}&token=${ADMIN_TOKEN}`, { ...agent, cookie });
    expect(signedIn.status).toBe(303);

    const guesser = { "x-forwarded-for": "10.26.1.2" };
    const form = await signInForm(guesser);
    let refused = await postSignIn(`_csrf=${form.field}&token=wrong`, { ...guesser, cookie: form.cookie });
    for (let i = 0; i < 12 && refused.status !== 429; i++) {
      expect(refused.status).toBe(401);
      refused = await postSignIn(`_csrf=${form.field}&token=wrong`, { ...guesser, cookie: form.cookie });
    }
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers.get("retry-after"));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(refused.text).toContain(
      "Too many wrong sign-in tokens from this address (10.26.1.2): 5 in 60 seconds.",
    );
    expect(refused.text).toContain(`Try again in ${wait} second`);
    expect(refused.text).toContain("skillport keys …</code>");
    const right = await postSignIn(`_csrf=${form.field}&token=${ADMIN_TOKEN}`, {
      ...guesser,
      cookie: form.cookie,
    });
    expect(right.status).toBe(429);
  });
});

describe("contract: keys roll", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.stop());

  const discover = (key: string) =>
    apiRequest(server.baseUrl, "POST", "/v1/discover", { key, json: { query: "send a message" } });
  const roll = async (id: string, grace: string) => {
    const result = await runCli([
      "keys",
      "roll",
      id,
      "--grace",
      grace,
      "--json",
      "--data-dir",
      server.dataDir,
    ]);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as CreatedKey & { previous: { id: string; expires_at: string } };
  };

  it("prints a new key; the old one keeps working through the grace period", async () => {
    const old = await server.createRoomyKey({ name: "rolled", owner: "acme" });
    const rolled = await roll(old.id, "1h");
    expect(rolled).toMatchObject({ name: "rolled", owner: "acme", plan: "enterprise" });
    expect(rolled.secret).not.toBe(old.secret);
    expect(rolled.previous.id).toBe(old.id);
    expect(Date.parse(rolled.previous.expires_at) - Date.now()).toBeGreaterThan(3_500_000);
    expect((await discover(old.secret)).status).toBe(200);
    expect((await discover(rolled.secret)).status).toBe(200);
  });

  it("with --grace 0, the old key is refused on its next request", async () => {
    const old = await server.createRoomyKey();
    const rolled = await roll(old.id, "0");
    expectError(await discover(old.secret), 401, "invalid_api_key");
    expect((await discover(rolled.secret)).status).toBe(200);
  });

  it("refuses a malformed grace period or an unknown key with a message", async () => {
    const bad = await runCli(["keys", "roll", "key_nope", "--grace", "soon", "--data-dir", server.dataDir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--grace/);
    const unknown = await runCli(["keys", "roll", "key_nope", "--data-dir", server.dataDir]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/No API key/);
  });
});
