import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isoTimestamp } from "../../src/core/clock.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import {
  apiRequest,
  awayFromMinuteBoundary,
  bodyOf,
  createKey,
  expectError,
  limitHeaders,
  runCli,
  startServer,
  type TestServer,
} from "../contract/harness.js";
import { makeKey } from "../store/contract/fixtures.js";
import { launchBrowser, screenshot, skipBrowserTests } from "./browser.js";

const SIGN_IN_LINK = /http:\/\/\S+\/dashboard\/sign-in\?token=[A-Za-z0-9]+/g;

/** The last one-time sign-in link the server printed on its console. */
function printedLinks(server: TestServer): string[] {
  return server.logs().match(SIGN_IN_LINK) ?? [];
}

/**
 * The dashboard in Debian's Chromium against the real built server: sign-in with the
 * printed link, a key created, used, charted, edited and revoked in the page, and the refusals
 * (no session, a wrong one, an API key, a form without its CSRF token). Steps run in
 * order and share the key they create.
 */
describe.skipIf(skipBrowserTests)("dashboard in a real browser", { timeout: 120_000 }, () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  let page: Page;
  let keyId = "";
  let secret = "";

  const visit = async (path: string) => {
    const response = await page.goto(`${server.baseUrl}${path}`);
    expect(response?.status(), path).toBe(200);
  };
  const sessionCookie = async () => {
    const cookie = (await context.cookies(`${server.baseUrl}/dashboard`)).find(
      (c) => c.name === "skillport_session",
    );
    if (!cookie) throw new Error("no session cookie in the browser");
    return `${cookie.name}=${cookie.value}`;
  };
  const discover = (key: string) =>
    apiRequest(server.baseUrl, "POST", "/v1/discover", { key, json: { query: "send a message" } });
  /** The key's details as its page shows them now. */
  const keyFacts = async () => {
    const res = await apiRequest(server.baseUrl, "GET", `/dashboard/keys/${keyId}`, {
      headers: { cookie: await sessionCookie() },
    });
    expect(res.status).toBe(200);
    return { plan: /<dt>Plan<\/dt><dd>([^<]*)<\/dd>/.exec(res.text)?.[1] ?? "" };
  };

  // Starting the server and Chromium can take a while on a busy machine: more than the default hook timeout.
  beforeAll(async () => {
    server = await startServer({ env: { SKILLPORT_ADMIN_TOKEN: undefined } });
    browser = await launchBrowser();
    context = browser.context;
    page = await context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  }, 60_000);

  it("sends a browser without a session to the sign-in page, which refuses a wrong token", async () => {
    await page.goto(`${server.baseUrl}/dashboard/keys`);
    expect(new URL(page.url()).pathname).toBe("/dashboard/sign-in");
    await screenshot(page, "01-sign-in");
    await page.getByLabel("Token").fill("not-the-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    expect(await page.getByRole("alert").textContent()).toMatch(/wrong/);
    await screenshot(page, "02-sign-in-refused");
    expect(await context.cookies(`${server.baseUrl}/dashboard`)).not.toContainEqual(
      expect.objectContaining({ name: "skillport_session" }),
    );
  });

  it("signs in with the one-time link printed on the console; the link works once", async () => {
    const [link] = printedLinks(server);
    expect(link, server.logs()).toBeDefined();
    await page.goto(link ?? "");
    expect(new URL(page.url()).pathname).toBe("/dashboard");
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Overview");
    const cookie = (await context.cookies(`${server.baseUrl}/dashboard`)).find(
      (c) => c.name === "skillport_session",
    );
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/dashboard" });
    await screenshot(page, "03-overview-empty");

    // Spent: the same link no longer signs in, and the server printed the next one.
    const again = await apiRequest(
      server.baseUrl,
      "GET",
      new URL(link ?? "").pathname + new URL(link ?? "").search,
    );
    expect(again.status).toBe(401);
    expect(printedLinks(server).length).toBe(2);
  });

  it("creates a key and shows its secret once, with a copy button and a warning", async () => {
    await visit("/dashboard/keys");
    await screenshot(page, "04-keys-empty");
    await page.getByRole("link", { name: "Create key" }).first().click();
    await page.getByLabel("Name").fill("browser test agent");
    await page.getByLabel(/full-access/).check();
    await page.getByLabel("Plan").selectOption("enterprise");
    await page.getByLabel("Requests per minute").fill("4");
    await page.getByLabel("Requests per day").fill("1000");
    await page.getByLabel("Owner").fill("acme");
    await screenshot(page, "05-key-form");
    await page.getByRole("button", { name: "Create key" }).click();

    secret = (await page.locator("[data-secret]").textContent())?.trim() ?? "";
    expect(secret).toMatch(/^sk_live_[0-9A-Za-z]{36}$/);
    expect(await page.getByRole("note").textContent()).toMatch(/only time the key is shown/);
    await expect(page.getByRole("button", { name: "Copy" }).isVisible()).resolves.toBe(true);
    await expect(page.getByText("Click the key to select it").isVisible()).resolves.toBe(false);
    await screenshot(page, "06-key-secret");

    // The form was answered with a redirect: reloading the secret's page sends nothing
    // again (no second key), and the secret is not shown a second time.
    const secretPageUrl = page.url();
    expect(new URL(secretPageUrl).pathname).toMatch(/^\/dashboard\/keys\/key_[^/]+\/secret$/);
    const reloaded = await page.reload();
    expect(reloaded?.status()).toBe(410);
    expect(await page.content()).not.toContain(secret);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toMatch(/shown once/);

    await page.getByRole("link", { name: "Go to the key" }).click();
    keyId = new URL(page.url()).pathname.split("/").at(-1) ?? "";
    expect(keyId).toMatch(/^key_/);
    // Never again: neither the key's page nor the list shows the secret.
    expect(await page.content()).not.toContain(secret);
    await visit("/dashboard/keys");
    expect(await page.content()).not.toContain(secret);
    expect(await page.locator("#keys-table").textContent()).toContain("browser test agent");
    expect(await page.locator("#keys-table tbody tr").count()).toBe(1);
    await screenshot(page, "07-keys-list");
  });

  it("the key works on /v1/discover; the usage chart shows those requests and the 429", async () => {
    // The key allows 4 requests a minute: stay inside one minute window.
    await awayFromMinuteBoundary(20);
    for (let i = 0; i < 3; i++) expect((await discover(secret)).status).toBe(200);
    const executed = await apiRequest(server.baseUrl, "POST", "/v1/execute", {
      key: secret,
      json: { skill_id: "math.evaluate", params: { expression: "6 * 7" } },
    });
    expect(bodyOf<{ result: unknown }>(executed).result).toMatchObject({ value: 42 });
    expectError(await discover(secret), 429, "rate_limit_exceeded");

    await visit(`/dashboard/keys/${keyId}`);
    const chart = page.locator("[data-chart=usage]");
    expect(await chart.locator("[data-total=accepted]").textContent()).toBe("4");
    expect(await chart.locator("[data-total=limited]").textContent()).toBe("1");
    const bars = await chart
      .locator("g.bar")
      .evaluateAll((nodes) =>
        nodes.map((node) => [
          Number(node.getAttribute("data-accepted")),
          Number(node.getAttribute("data-limited")),
        ]),
      );
    expect(bars).toHaveLength(60);
    expect(bars.reduce((sum, [accepted]) => sum + (accepted ?? 0), 0)).toBe(4);
    expect(bars.reduce((sum, [, limited]) => sum + (limited ?? 0), 0)).toBe(1);
    // The minute window is used up: the meter says so.
    expect(await page.getByLabel("This minute").getAttribute("value")).toBe("4");
    await screenshot(page, "08-key-detail");

    await visit("/dashboard/usage");
    expect(await page.locator("[data-chart=usage] [data-total=accepted]").textContent()).toBe("4");
    await screenshot(page, "09-usage");
    // The key picker: an arrow key moves the choice without leaving the page (each step
    // used to load a page and lose focus); Enter applies it, and a pointer's choice at once.
    const picker = page.locator("#usage-key");
    await picker.focus();
    await page.keyboard.press("ArrowDown");
    await page.waitForTimeout(500);
    expect(new URL(page.url()).search).toBe("");
    expect(await page.evaluate("document.activeElement?.id")).toBe("usage-key");
    expect(await picker.inputValue()).toBe(keyId);
    await Promise.all([page.waitForURL(/[?&]key=key_/), page.keyboard.press("Enter")]);
    expect(await page.locator("[data-chart=usage] [data-total=accepted]").textContent()).toBe("4");
    await Promise.all([
      page.waitForURL((url) => url.searchParams.get("key") === ""),
      picker.selectOption(""),
    ]);
    await visit("/dashboard");
    await screenshot(page, "10-overview");
  });

  it("lists executions across keys, filters them and shows one in detail", async () => {
    await visit("/dashboard/executions");
    await page.getByLabel("Skill").selectOption("math.evaluate");
    await page.getByLabel("Owner").selectOption("acme");
    await page.getByRole("button", { name: "Filter" }).click();
    expect(new URL(page.url()).searchParams.get("skill_id")).toBe("math.evaluate");
    const rows = page.locator("table tbody tr");
    expect(await rows.count()).toBe(1);
    await screenshot(page, "11-executions");
    await rows.first().getByRole("link").click();
    expect(await page.locator("pre").first().textContent()).toContain('"expression": "6 * 7"');
    expect(await page.locator("pre").nth(1).textContent()).toContain('"value": 42');
    await screenshot(page, "12-execution-detail");
  });

  it("shows the catalog and searches it with discovery", async () => {
    await visit("/dashboard/skills");
    await screenshot(page, "13-skills");
    await page.getByLabel("Describe what an agent needs").fill("send a message to a channel");
    await page.getByRole("button", { name: "Discover" }).click();
    expect(await page.locator(".skill-card code").first().textContent()).toBe("message.send");
    await screenshot(page, "14-skills-search");
    await page.locator(".skill-card h2 a").first().click();
    expect(await page.getByRole("heading", { name: "Params schema" }).isVisible()).toBe(true);
    expect(await page.content()).toContain("channel");
    await screenshot(page, "15-skill-detail");
  });

  it("edits the key's limits in a form filled with what it has; the API applies them from its next request", async () => {
    await visit(`/dashboard/keys/${keyId}`);
    await page.getByRole("link", { name: "Edit key" }).click();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/keys/${keyId}/edit`);
    expect(await page.getByLabel("Name").inputValue()).toBe("browser test agent");
    expect(await page.getByLabel("Plan").inputValue()).toBe("enterprise");
    const perMinute = page.getByLabel("Requests per minute");
    const perDay = page.getByLabel("Requests per day");
    expect(await perMinute.inputValue()).toBe("4");
    expect(await perDay.inputValue()).toBe("1000");
    await screenshot(page, "15a-key-edit");

    // A limit the core refuses shows the form again, the error at its field; nothing changes.
    await perMinute.fill("0");
    await page.getByRole("button", { name: "Save changes" }).click();
    expect(await page.getByRole("alert").textContent()).toMatch(/not changed/);
    expect(await perMinute.getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator("#limit_minute-error").textContent()).not.toBe("");
    expect(await perDay.inputValue()).toBe("1000");
    await screenshot(page, "15b-key-edit-refused");
    expect((await keyFacts()).plan).toMatch(/4\/min, 1,000\/day/);

    await perMinute.fill("50");
    await perDay.fill("5000");
    await page.getByRole("button", { name: "Save changes" }).click();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/keys/${keyId}`);
    expect(await page.locator("main .alert[role=status]").textContent()).toMatch(/saved/);
    expect((await keyFacts()).plan).toBe("enterprise · 50/min, 5,000/day");
    expect(await page.getByLabel("This minute").getAttribute("max")).toBe("50");
    expect(await page.getByLabel("Today (UTC)").getAttribute("max")).toBe("5000");
    await screenshot(page, "15c-key-edited");

    // The same secret, the new limits: the minute window (fewest left) reports 50.
    const res = await discover(secret);
    expect(res.status).toBe(200);
    expect(limitHeaders(res).limit).toBe(50);
  });

  it("rolls a key: a new secret, the old one still working through the grace period", async () => {
    await visit(`/dashboard/keys/${keyId}/roll`);
    await page.getByLabel(/Grace period/).selectOption("3600");
    await page.getByRole("button", { name: "Roll key" }).click();
    const rolled = (await page.locator("[data-secret]").textContent())?.trim() ?? "";
    expect(rolled).toMatch(/^sk_live_/);
    expect(rolled).not.toBe(secret);
    await screenshot(page, "16-key-rolled");
    // Both keys open the API now (the new one has a fresh minute window of its own).
    expect((await discover(rolled)).status).toBe(200);
    expect((await discover(`sk_live_${"0".repeat(36)}`)).status).toBe(401);
    expect(await page.locator(".notice, .lead, main").first().textContent()).toMatch(/keeps working until/);

    // Without a grace period the page must not promise the old key a future.
    const other = await server.createRoomyKey({ name: "rolled at once" });
    await visit(`/dashboard/keys/${other.id}/roll`);
    await page.getByLabel(/Grace period/).selectOption("0");
    await page.getByRole("button", { name: "Roll key" }).click();
    const text = (await page.locator("main").textContent()) ?? "";
    expect(text).toMatch(/no longer works/);
    expect(text).not.toMatch(/keeps working/);
    expect((await discover(other.secret)).status).toBe(401);
  });

  it("revokes the key in the page after a confirmation; its next request is refused", async () => {
    await visit(`/dashboard/keys/${keyId}`);
    await page.getByRole("link", { name: "Revoke" }).click();
    await screenshot(page, "17-revoke-confirm");
    await page.getByRole("button", { name: "Revoke key" }).click();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/keys/${keyId}`);
    expect(await page.locator(".lead .badge").textContent()).toBe("revoked");
    // Only an active key can be edited or rolled: the page no longer offers either.
    expect(await page.getByRole("link", { name: "Edit key" }).count()).toBe(0);
    await screenshot(page, "18-key-revoked");
    expectError(await discover(secret), 401, "invalid_api_key");
  });

  // Audit 26, dashboard #2: after a revoke, "is anything still using the old key?"
  it("shows a client still calling with the revoked key: refused requests charted, the last one in the details and the list", async () => {
    expectError(await discover(secret), 401, "invalid_api_key");
    expectError(await discover(secret), 401, "invalid_api_key");
    await visit(`/dashboard/keys/${keyId}`);
    const chart = page.locator("[data-chart=usage]");
    // The revoke step's own refused request, and these two.
    expect(await chart.locator("[data-total=refused]").textContent()).toBe("3");
    const refusedBars = await chart
      .locator("g.bar")
      .evaluateAll((nodes) => nodes.map((node) => Number(node.getAttribute("data-refused"))));
    expect(refusedBars.reduce((sum, refused) => sum + refused, 0)).toBe(3);
    expect(await chart.locator("rect.bar-refused").count()).toBeGreaterThan(0);
    const lastRefused = page
      .locator("dt", { hasText: "Last refused use" })
      .locator("xpath=following-sibling::dd");
    expect(await lastRefused.locator("time").getAttribute("datetime")).toMatch(/^\d{4}-.*Z$/);
    await screenshot(page, "18b-revoked-key-still-used");

    await visit("/dashboard/keys");
    const row = page.locator("#keys-table tbody tr", {
      has: page.locator(`a[href="/dashboard/keys/${keyId}"]`),
    });
    expect(await row.locator(".sub", { hasText: "refused" }).locator("time").count()).toBe(1);
    // The overview's chart counts them too, and (left open in session 26) so do its tiles.
    await visit("/dashboard");
    const charted = await page.locator("[data-chart=usage] [data-total=refused]").textContent();
    expect(Number(charted)).toBeGreaterThanOrEqual(3);
    const tile = page.locator("[data-stat=refused]");
    expect(await tile.locator(".stat-value").textContent()).toBe(charted);
    expect(await tile.locator(".stat-label").textContent()).toBe("refused (revoked/expired key), last 24 h");
    expect(await tile.locator("a").getAttribute("href")).toBe("/dashboard/usage?range=day");
    await screenshot(page, "18c-overview-refused-tile");
  });

  it("refuses a missing or wrong session; API keys never open the dashboard, nor sessions /v1", async () => {
    const cookie = await sessionCookie();
    const get = (headers: Record<string, string>) =>
      apiRequest(server.baseUrl, "GET", "/dashboard/keys", { headers, redirect: "manual" });
    const refused: Record<string, string>[] = [
      {},
      { cookie: "skillport_session=wrong" },
      { authorization: `Bearer ${secret}` },
    ];
    for (const headers of refused) {
      const res = await get(headers);
      expect(res.status, JSON.stringify(headers)).toBe(303);
      expect(res.headers.get("location")).toBe("/dashboard/sign-in?next=%2Fdashboard%2Fkeys");
    }
    const fresh = (await server.createKey({ scope: "read-only" })).secret;
    expect((await get({ authorization: `Bearer ${fresh}` })).status).toBe(303);
    // A state-changing request without a session is refused outright.
    const post = await apiRequest(server.baseUrl, "POST", "/dashboard/keys", {
      rawBody: "name=x&scope=read-only",
      contentType: "application/x-www-form-urlencoded",
      redirect: "manual",
    });
    expect(post.status).toBe(401);
    // The session cookie is no credential for the API.
    const api = await apiRequest(server.baseUrl, "POST", "/v1/discover", {
      headers: { cookie },
      json: { query: "send a message" },
    });
    expectError(api, 401, "missing_api_key");
    expect((await get({ cookie })).status).toBe(200);
  });

  it("refuses a state-changing request without its CSRF token", async () => {
    const cookie = await sessionCookie();
    const target = await server.createKey({ name: "csrf target" });
    const revoke = (body: string) =>
      apiRequest(server.baseUrl, "POST", `/dashboard/keys/${target.id}/revoke`, {
        headers: { cookie },
        rawBody: body,
        contentType: "application/x-www-form-urlencoded",
        redirect: "manual",
      });
    expect((await revoke("")).status).toBe(403);
    expect((await revoke("_csrf=forged")).status).toBe(403);
    expect((await discover(target.secret)).status).toBe(200);
    // The page's own form carries the token and works.
    const form = await apiRequest(server.baseUrl, "GET", `/dashboard/keys/${target.id}/revoke`, {
      headers: { cookie },
    });
    const token = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1] ?? "";
    expect(token).not.toBe("");
    expect((await revoke(`_csrf=${encodeURIComponent(token)}`)).status).toBe(303);
    expectError(await discover(target.secret), 401, "invalid_api_key");
  });

  it("refuses an edit without its CSRF token", async () => {
    const cookie = await sessionCookie();
    const target = await server.createKey({
      name: "csrf edit target",
      plan: "enterprise",
      limitMinute: 7,
      limitDay: 70,
    });
    const edit = (csrf: string) =>
      apiRequest(server.baseUrl, "POST", `/dashboard/keys/${target.id}/edit`, {
        headers: { cookie },
        rawBody: `${csrf}name=edited&plan=enterprise&limit_minute=9&limit_day=90`,
        contentType: "application/x-www-form-urlencoded",
        redirect: "manual",
      });
    const limit = async () => limitHeaders(await discover(target.secret)).limit;
    expect((await edit("")).status).toBe(403);
    expect((await edit("_csrf=forged&")).status).toBe(403);
    expect(await limit()).toBe(7);
    // The page's own form carries the token and works.
    const form = await apiRequest(server.baseUrl, "GET", `/dashboard/keys/${target.id}/edit`, {
      headers: { cookie },
    });
    const token = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1] ?? "";
    expect(token).not.toBe("");
    const saved = await edit(`_csrf=${encodeURIComponent(token)}&`);
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toBe(`/dashboard/keys/${target.id}?edited=1`);
    expect(await limit()).toBe(9);
  });

  it("sends the create form once when a slow answer tempts a second click", async () => {
    await visit("/dashboard/keys/new");
    await page.getByLabel("Name").fill("slow double");
    await page.getByLabel(/read-only/).check();
    const posts: string[] = [];
    const onRequest = (request: { method(): string; url(): string }) => {
      if (request.method() === "POST") posts.push(request.url());
    };
    page.on("request", onRequest);
    // The answer to the form is held back, as on a slow link.
    await page.route("**/dashboard/keys", async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.continue();
    });
    // Two clicks 300 ms apart, from the page itself: Playwright's own click waits for the
    // navigation the first one started, which a person's second click does not.
    await page.evaluate(`(() => {
      const create = [...document.querySelectorAll("button[type=submit]")].find(
        (b) => b.textContent.trim() === "Create key",
      );
      create.click();
      setTimeout(() => create.click(), 300);
    })()`);
    await expect.poll(() => page.url(), { timeout: 15_000 }).toMatch(/\/secret$/);
    await page.unroute("**/dashboard/keys");
    page.off("request", onRequest);
    expect(posts).toEqual([`${server.baseUrl}/dashboard/keys`]);
    const listed = await runCli(["keys", "list", "--json", "--data-dir", server.dataDir]);
    expect(listed.stdout.match(/"slow double"/g)).toHaveLength(1);
  });

  /** The id of the element that has the focus. */
  const focused = (on: Page = page) => on.evaluate<string>('document.activeElement?.id ?? ""');

  // Regression (audit 26 #4 and #3): a refused form came back with the focus on the page's
  // body, and swapped limits were taken without a word.
  it("puts the focus on the first field to fix after a refused form, and notes a minute's limit above the day's", async () => {
    await visit("/dashboard/keys/new");
    await page.getByRole("button", { name: "Create key" }).click();
    expect(await page.getByRole("alert").textContent()).toMatch(/check the highlighted fields/);
    await expect.poll(() => focused(), { timeout: 5000 }).toBe("name");

    await page.getByLabel("Name").fill("swapped limits");
    await page.getByLabel("Plan").selectOption("enterprise");
    await page.getByLabel("Requests per minute").fill("5");
    await page.getByLabel("Requests per day").fill("2000000000");
    await page.getByRole("button", { name: "Create key" }).click();
    await expect.poll(() => focused(), { timeout: 5000 }).toBe("limit_day");
    expect(await page.locator("#limit_day-error").textContent()).toBe("must be at most 1,000,000,000");

    await page.getByLabel("Requests per minute").fill("5000");
    await page.getByLabel("Requests per day").fill("10");
    await page.getByRole("button", { name: "Create key" }).click();
    await expect.poll(() => page.getByRole("heading", { name: /Copy the key for/ }).isVisible()).toBe(true);
    expect(await page.locator(".secret-panel").textContent()).toContain(
      "Its minute limit (5,000) is above its day limit (10): the key gets at most 10 requests a day.",
    );
    await screenshot(page, "19-swapped-limits");
  });

  // Regression (audit 26 #5 and #4): without script, the secret page's Copy button did
  // nothing, and a refused form left the focus at the top.
  it("without JavaScript, says to copy the new key by hand instead of a Copy button that does nothing", async () => {
    const noScript = await launchBrowser({ javaScriptEnabled: false });
    try {
      const plain = await noScript.context.newPage();
      const link = printedLinks(server).at(-1) ?? "";
      await plain.goto(link);
      expect(new URL(plain.url()).pathname).toBe("/dashboard");
      await plain.goto(`${server.baseUrl}/dashboard/keys/new`);
      await plain.getByRole("button", { name: "Create key" }).click();
      // Browsers apply `autofocus` as the page is first rendered, just after it has loaded.
      await expect.poll(() => focused(plain), { timeout: 5000 }).toBe("name");

      await plain.getByLabel("Name").fill("no script agent");
      await plain.getByRole("button", { name: "Create key" }).click();
      expect(new URL(plain.url()).pathname).toMatch(/\/secret$/);
      expect((await plain.locator("[data-secret]").textContent())?.trim()).toMatch(/^sk_live_/);
      await expect(plain.getByRole("button", { name: "Copy" }).isVisible()).resolves.toBe(false);
      await expect(plain.getByText("Click the key to select it, then copy it").isVisible()).resolves.toBe(
        true,
      );
      await screenshot(plain, "19-no-script-secret");
    } finally {
      await noScript.close();
    }
  });

  // Found by the dashboard audit (session 39): times were shown in the reader's zone without
  // naming it, beside charts and hints in UTC.
  it("names the zone of the times it shows in the reader's zone", async () => {
    const elsewhere = await launchBrowser({ timezoneId: "America/Los_Angeles" });
    try {
      const reader = await elsewhere.context.newPage();
      await reader.goto(printedLinks(server).at(-1) ?? "");
      expect(new URL(reader.url()).pathname).toBe("/dashboard");
      await reader.goto(`${server.baseUrl}/dashboard/keys/${keyId}`);
      const shown = await reader.locator("time[datetime]").allTextContents();
      expect(shown.length).toBeGreaterThan(0);
      for (const text of shown) expect(text).toMatch(/\b(PST|PDT|GMT-[78])$/);
    } finally {
      await elsewhere.close();
    }
  });

  it("keeps every column of the key list in view beside a key with a 100-character name", async () => {
    const longName = `${"A".repeat(60)} ${"B".repeat(39)}`;
    await createKey(server.dataDir, { name: longName });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 860 });
      await visit("/dashboard/keys");
      const status = await page.getByRole("columnheader", { name: /Status/ }).boundingBox();
      expect(status, `width ${width}`).not.toBeNull();
      expect((status?.x ?? 0) + (status?.width ?? 0), `width ${width}`).toBeLessThanOrEqual(width);
      await screenshot(page, `19-long-name-${width}`);
    }
    expect(await page.locator("#keys-table").textContent()).toContain(longName);
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  // Regression: the secret page's heading ("Copy the key for “…” now") did not wrap a long
  // word, and a 100-character name without a space pushed the page sideways.
  it("wraps a 100-character name without a space on every page that says it", async () => {
    const unbroken = "W".repeat(100);
    const overflow = () => page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 860 });
      await visit("/dashboard/keys/new");
      await page.getByLabel("Name").fill(unbroken);
      await page.getByRole("button", { name: "Create key" }).click();
      expect(new URL(page.url()).pathname).toMatch(/\/secret$/);
      expect(await page.getByRole("heading", { name: /Copy the key for/ }).textContent()).toContain(unbroken);
      expect(await overflow(), `secret page at ${width}`).toBeLessThanOrEqual(0);
      await screenshot(page, `19-unbroken-name-secret-${width}`);
      const id = new URL(page.url()).pathname.split("/").at(-2) ?? "";
      await page.reload();
      expect(await overflow(), `shown-once page at ${width}`).toBeLessThanOrEqual(0);
      for (const path of ["", "/edit", "/roll", "/revoke"]) {
        await visit(`/dashboard/keys/${id}${path}`);
        expect(await overflow(), `${path || "key"} page at ${width}`).toBeLessThanOrEqual(0);
      }
    }
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it("works at phone width and in dark mode", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await visit("/dashboard/keys");
    await screenshot(page, "19-phone-keys");
    await visit(`/dashboard/keys/${keyId}`);
    await screenshot(page, "20-phone-key-detail");
    await page.emulateMedia({ colorScheme: "dark" });
    await visit("/dashboard");
    await screenshot(page, "21-phone-dark-overview");
    await page.setViewportSize({ width: 1280, height: 860 });
    await visit("/dashboard/usage");
    await screenshot(page, "22-dark-usage");
    await page.emulateMedia({ colorScheme: "light" });
  });

  // Left open in session 26 (audit 21 dashboard #10): the key list had no status filter,
  // and searching "revoked" found nothing.
  it("filters the key list by status with tabs that keep the search and the order", async () => {
    await visit("/dashboard/keys");
    const tabs = page.getByRole("navigation", { name: "Key status" });
    const badges = () => page.locator("#keys-table tbody .badge").allTextContents();
    const revokedRow = page.locator(`#keys-table a[href="/dashboard/keys/${keyId}"]`);
    const all = (await badges()).length;
    expect(all).toBeGreaterThan(1);

    await tabs.getByRole("link", { name: /^Revoked/ }).click();
    expect(new URL(page.url()).searchParams.get("status")).toBe("revoked");
    expect(await tabs.locator("[aria-current=true]").getAttribute("data-status")).toBe("revoked");
    const revoked = await badges();
    expect(revoked.length).toBeGreaterThan(0);
    expect(new Set(revoked)).toEqual(new Set(["revoked"]));
    expect(await tabs.locator("[data-status=revoked] .muted").textContent()).toBe(String(revoked.length));
    expect(await revokedRow.count()).toBe(1);
    // Sorting keeps the tab.
    await page.locator("#keys-table thead").getByRole("link", { name: /Name/ }).click();
    expect(new URL(page.url()).searchParams.get("status")).toBe("revoked");
    expect(new URL(page.url()).searchParams.get("sort")).toBe("name");

    await tabs.getByRole("link", { name: /^Active/ }).click();
    const active = await badges();
    expect(new Set(active)).toEqual(new Set(["active"]));
    expect(await revokedRow.count()).toBe(0);
    // A search keeps the tab: the revoked key's id finds no active key, and one revoked.
    await page.getByLabel("Search keys").fill(keyId);
    await page.getByRole("button", { name: "Search" }).click();
    expect(new URL(page.url()).searchParams.get("status")).toBe("active");
    expect(await page.locator("#keys-table tbody").textContent()).toContain(
      `No active key matches “${keyId}”.`,
    );
    expect(await tabs.locator("[data-status=revoked] .muted").textContent()).toBe("1");
    await tabs.getByRole("link", { name: /^All/ }).click();
    expect(new URL(page.url()).searchParams.get("status")).toBeNull();
    expect(await revokedRow.count()).toBe(1);
    await screenshot(page, "24-keys-status-tabs");
  });

  it("pages a long key list with links that keep the search, the tab and the order", async () => {
    // More keys than a page holds (50), written straight to the server's store: fast.
    const store = openSqliteStore({ dataDir: server.dataDir });
    try {
      const start = Date.now() - 60_000;
      for (let i = 0; i < 60; i++) {
        await store.keys.insert(
          makeKey({
            name: `bulk ${String(i).padStart(2, "0")}`,
            createdAt: isoTimestamp(start + i * 100),
            revokedAt: i % 4 === 0 ? isoTimestamp(start) : null,
          }),
        );
      }
    } finally {
      await store.close();
    }
    const names = () => page.locator("#keys-table tbody a.strong").allTextContents();
    const pages = page.getByRole("navigation", { name: "Key list pages" });
    await visit("/dashboard/keys");
    await page.getByLabel("Search keys").fill("bulk");
    await page.getByRole("button", { name: "Search" }).click();
    const first = await names();
    expect(first).toHaveLength(50);
    expect(first[0]).toBe("bulk 59");
    expect(await pages.textContent()).toContain("50 of 60 keys shown");
    expect(await pages.getByRole("link", { name: /Newer keys/ }).count()).toBe(0);

    await pages.getByRole("link", { name: /Older keys/ }).click();
    expect(new URL(page.url()).searchParams.get("q")).toBe("bulk");
    const second = await names();
    expect(second).toEqual([
      "bulk 09",
      "bulk 08",
      "bulk 07",
      "bulk 06",
      "bulk 05",
      "bulk 04",
      "bulk 03",
      "bulk 02",
      "bulk 01",
      "bulk 00",
    ]);
    expect(await pages.getByRole("link", { name: /Older keys/ }).count()).toBe(0);
    await screenshot(page, "25-keys-second-page");
    await pages.getByRole("link", { name: /Newer keys/ }).click();
    expect(await names()).toEqual(first);

    // The active tab, by name: 45 keys, one page; a page of 50 holds them all.
    await page
      .getByRole("navigation", { name: "Key status" })
      .getByRole("link", { name: /^Active/ })
      .click();
    await page.locator("#keys-table thead").getByRole("link", { name: /Name/ }).click();
    const active = await names();
    expect(active).toHaveLength(45);
    expect(active).toEqual([...active].sort());
    expect(await pages.count()).toBe(0);
    expect(new URL(page.url()).searchParams.get("q")).toBe("bulk");
  });

  // Left open in session 26 (audit 21 dashboard #11b): a form posted after the session
  // ended lost what was typed, and signing in again landed on the overview.
  it("a form posted after the session ended leads, once signed in again, back to the form filled in as typed", async () => {
    await visit("/dashboard/keys/new");
    await page.getByLabel("Name").fill("typed while signed out");
    await page.getByLabel("Owner").fill("team-late");
    await page.getByLabel(/read-only/).check();
    await page.getByLabel("Plan").selectOption("pro");
    // Signed out in another tab meanwhile.
    const other = await context.newPage();
    await other.goto(`${server.baseUrl}/dashboard`);
    // Closed only once signed out: closing the tab while its POST is under way may cancel it.
    await Promise.all([
      other.waitForURL((url) => url.pathname === "/dashboard/sign-in"),
      other.getByRole("button", { name: "Sign out" }).click(),
    ]);
    await other.close();

    const [answer] = await Promise.all([
      page.waitForResponse((res) => res.request().method() === "POST"),
      page.getByRole("button", { name: "Create key" }).click(),
    ]);
    expect(answer.status()).toBe(401);
    expect(await page.getByRole("alert").textContent()).toContain("this form was not sent");
    await screenshot(page, "22-form-after-session-ended");
    await page.getByRole("link", { name: "Sign in again" }).click();
    expect(new URL(page.url()).searchParams.get("next")).toBe("/dashboard/keys/new");
    const link = printedLinks(server).at(-1) ?? "";
    await page.getByLabel("Token").fill(link);
    await page.getByRole("button", { name: "Sign in" }).click();

    expect(new URL(page.url()).pathname).toBe("/dashboard/keys/new");
    expect(await page.locator("[data-draft-restored]").textContent()).toMatch(
      /filled in with what you typed/,
    );
    expect(await page.getByLabel("Name").inputValue()).toBe("typed while signed out");
    expect(await page.getByLabel("Owner").inputValue()).toBe("team-late");
    expect(await page.getByLabel(/read-only/).isChecked()).toBe(true);
    expect(await page.getByLabel("Plan").inputValue()).toBe("pro");
    await screenshot(page, "23-form-refilled");
    // Spent: the next visit of the form is a fresh one.
    await visit("/dashboard/keys/new");
    expect(await page.getByLabel("Name").inputValue()).toBe("");
    expect(await page.locator("[data-draft-restored]").count()).toBe(0);
  });

  // Regression: every form keeps a draft as it is sent, and one answered on the address it
  // was sent from (a search led back to the list, an edit refused for a field) put it back
  // with "Your session had ended", a session that had not.
  it("a form answered on its own page (a search, a refused edit) is not said to follow an ended session", async () => {
    await visit("/dashboard/keys");
    await page.getByLabel("Search keys").fill("bulk 1");
    await page.getByRole("button", { name: "Search" }).click();
    expect(new URL(page.url()).pathname).toBe("/dashboard/keys");
    expect(await page.locator("#keys-table tbody a.strong").first().textContent()).toMatch(/^bulk 1/);
    expect(await page.locator("[data-draft-restored]").count()).toBe(0);

    const key = await server.createRoomyKey({ name: "edited wrongly" });
    await visit(`/dashboard/keys/${key.id}/edit`);
    await page.getByLabel("Name").fill("");
    const [answer] = await Promise.all([
      page.waitForResponse((res) => res.request().method() === "POST"),
      page.getByRole("button", { name: "Save changes" }).click(),
    ]);
    expect(answer.status()).toBe(400);
    expect(new URL(page.url()).pathname).toBe(`/dashboard/keys/${key.id}/edit`);
    expect(await page.getByRole("alert").textContent()).toMatch(/The key was not changed/);
    expect(await page.locator("[data-draft-restored]").count()).toBe(0);
  });

  it("signs out: the old session no longer opens the dashboard", async () => {
    const cookie = await sessionCookie();
    await visit("/dashboard");
    await page.getByRole("button", { name: "Sign out" }).click();
    expect(new URL(page.url()).pathname).toBe("/dashboard/sign-in");
    expect(await page.getByRole("status").textContent()).toMatch(/signed out/);
    const res = await apiRequest(server.baseUrl, "GET", "/dashboard", {
      headers: { cookie },
      redirect: "manual",
    });
    expect(res.status).toBe(303);
  });
});
