import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isoTimestamp } from "../../src/core/clock.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { makeKey } from "../store/contract/fixtures.js";
import { apiRequest, dashboardSession, serverForSuite } from "./harness.js";

const ADMIN_TOKEN = "contract-admin-token-0123456789";
/** More keys than two pages of the list hold (50 a page), a third of them revoked. */
const PAGED = 130;
const REVOKED = Math.ceil(PAGED / 3);
/** Text shaped like part of a secret. */
const HIDDEN = "sk_test_Zq8Lm3Np";

/** The key list's pages as a browser reads them: rows, links to the pages either side, the counts said. */
function readList(text: string) {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(text)?.[1] ?? "";
  const link = (rel: string) => {
    const href = new RegExp(`<a class="button" rel="${rel}" href="([^"]+)"`).exec(text)?.[1];
    return href?.replaceAll("&amp;", "&");
  };
  return {
    ids: [...body.matchAll(/<a class="strong" href="\/dashboard\/keys\/([^"]+)">([^<]*)<\/a>/g)].map(
      (m) => m[1] ?? "",
    ),
    names: [...body.matchAll(/<a class="strong" href="\/dashboard\/keys\/[^"]+">([^<]*)<\/a>/g)].map(
      (m) => m[1] ?? "",
    ),
    badges: [...body.matchAll(/<span class="badge[^"]*"[^>]*>([^<]*)<\/span>/g)].map((m) => m[1] ?? ""),
    next: link("next"),
    previous: link("prev"),
    tabCount: (status: string) =>
      new RegExp(`data-status="${status}"[^>]*>[^<]*<span class="muted">(\\d+)</span>`).exec(text)?.[1],
    shown: /(\d+) of (\d+) keys shown/.exec(text)?.slice(1, 3).map(Number),
    /** What the pager says: how many keys are shown, which ones, and where the others are. */
    said: /<nav class="pager"[^>]*><span class="muted">([^<]*)/.exec(text)?.[1],
  };
}

describe("the dashboard's key list, a page at a time", () => {
  const server = serverForSuite({ env: { SKILLPORT_ADMIN_TOKEN: ADMIN_TOKEN } });
  let cookie = "";
  const created: { id: string; name: string; revoked: boolean }[] = [];

  beforeAll(async () => {
    // Written straight to the server's store (another process, as `keys create` is): fast.
    const store = openSqliteStore({ dataDir: server().dataDir });
    try {
      const start = Date.now() - PAGED * 1000;
      for (let i = 0; i < PAGED; i++) {
        const revoked = i % 3 === 0;
        const key = makeKey({
          name: `pager-${String(i).padStart(3, "0")}`,
          createdAt: isoTimestamp(start + i * 1000),
          revokedAt: revoked ? isoTimestamp(start + i * 1000 + 1) : null,
        });
        await store.keys.insert(key);
        created.push({ id: key.id, name: key.name, revoked });
      }
      // Keys whose names hold what looks like part of a secret: a search for it is kept
      // out of the page's address and links.
      for (let i = 0; i < 55; i++) {
        await store.keys.insert(
          makeKey({ name: `hidden ${HIDDEN} ${i}`, createdAt: isoTimestamp(start + i) }),
        );
      }
      // Keys the search does not find.
      await store.keys.insert(makeKey({ name: "unrelated one" }));
      await store.keys.insert(makeKey({ name: "unrelated two" }));
    } finally {
      await store.close();
    }
    cookie = await dashboardSession(server().baseUrl, ADMIN_TOKEN);
  });

  afterAll(() => {
    created.length = 0;
  });

  const get = async (path: string) => {
    const res = await apiRequest(server().baseUrl, "GET", path, { headers: { cookie } });
    expect(res.status, path).toBe(200);
    return readList(res.text);
  };

  /** Every page from `path` on, following the "next" links: each page as read. */
  async function followNext(path: string) {
    const pages = [await get(path)];
    for (let page = pages[0]; page?.next; ) {
      page = await get(page.next);
      pages.push(page);
      if (pages.length > 10) throw new Error("the pages never end");
    }
    return pages;
  }

  it("shows 50 keys a page, newest first; the next pages hold the rest, none twice, and the way back", async () => {
    const pages = await followNext("/dashboard/keys?q=pager");
    expect(pages.map((page) => page.ids.length)).toEqual([50, 50, 30]);
    const ids = pages.flatMap((page) => page.ids);
    const newestFirst = [...created].reverse();
    expect(ids).toEqual(newestFirst.map((key) => key.id));
    // The counts are the search's, not the page's: every page says the same.
    for (const page of pages) {
      expect(page.tabCount("all")).toBe(String(PAGED));
      expect(page.tabCount("revoked")).toBe(String(REVOKED));
      expect(page.tabCount("active")).toBe(String(PAGED - REVOKED));
    }
    expect(pages.map((page) => page.shown)).toEqual([
      [50, PAGED],
      [50, PAGED],
      [30, PAGED],
    ]);
    // Which 50 a page shows, and where the others are: "50 of 130" alone said neither.
    expect(pages.map((page) => page.said)).toEqual([
      "50 of 130 keys shown, newest first; the other 80 are on the next 2 pages",
      "50 of 130 keys shown, newest first; the others are on the pages before and after",
      "30 of 130 keys shown, newest first; the other 100 are on the 2 pages before",
    ]);
    expect(pages[0]?.previous).toBeUndefined();
    // Every link keeps the search.
    expect(
      pages
        .slice(0, -1)
        .every((page) => new URL(page.next ?? "", "http://x").searchParams.get("q") === "pager"),
    ).toBe(true);

    // Back from the last page: the same pages, in reverse, to the first, which has none before it.
    const last = pages.at(-1);
    const back = await get(last?.previous ?? "");
    expect(back.ids).toEqual(pages[1]?.ids);
    const first = await get(back.previous ?? "");
    expect(first.ids).toEqual(pages[0]?.ids);
    expect(first.previous).toBeUndefined();
  });

  it("keeps the status tab and the order across pages", async () => {
    const revokedPages = await followNext("/dashboard/keys?q=pager&status=revoked");
    const revokedIds = revokedPages.flatMap((page) => page.ids);
    expect(revokedIds).toEqual(
      created
        .filter((key) => key.revoked)
        .reverse()
        .map((key) => key.id),
    );
    expect(new Set(revokedPages.flatMap((page) => page.badges))).toEqual(new Set(["revoked"]));
    // They fit on one page: no page links, and no count beside the tab's.
    expect(revokedPages).toHaveLength(1);
    expect(revokedPages[0]?.shown).toBeUndefined();

    const byName = await followNext("/dashboard/keys?q=pager&sort=name&dir=asc&status=active");
    expect(byName.length).toBe(2);
    const active = PAGED - REVOKED;
    expect(byName.map((page) => page.said)).toEqual([
      `50 of ${active} keys shown, by name, A to Z; the other ${active - 50} are on the next page`,
      `${active - 50} of ${active} keys shown, by name, A to Z; the other 50 are on the page before`,
    ]);
    const names = byName.flatMap((page) => page.names);
    expect(names).toEqual(
      created
        .filter((key) => !key.revoked)
        .map((key) => key.name)
        .sort(),
    );
    for (const page of byName.slice(0, -1)) {
      const params = new URL(page.next ?? "", "http://x").searchParams;
      expect([params.get("sort"), params.get("dir"), params.get("status")]).toEqual([
        "name",
        "asc",
        "active",
      ]);
    }
  });

  it("says a search kept out of the links has no other pages, rather than links that would lose it", async () => {
    const res = await apiRequest(server().baseUrl, "GET", `/dashboard/keys?q=${HIDDEN}`, {
      headers: { cookie },
    });
    expect(res.status).toBe(200);
    const page = readList(res.text);
    expect(page.ids).toHaveLength(50);
    expect(page.shown).toEqual([50, 55]);
    expect(page.said).toMatch(/^50 of 55 keys shown, newest first: this search may be part of a secret/);
    expect(page.next).toBeUndefined();
    expect(res.text).toContain(
      "may be part of a secret, so it is kept out of the page's links and has no other pages",
    );
    // Not shown back in the search box either (the keys' own names show it, as their names).
    expect(res.text).toContain('name="q" value=""');
  });

  // A cursor is a place in one listing: carried to another order (an edited address, or a
  // sort link built from the current one), it was read as a place in that order.
  it("shows the first page of the new order for a cursor of another order", async () => {
    const newest = await get("/dashboard/keys?q=pager");
    const cursor = new URL(newest.next ?? "", "http://x").searchParams.get("cursor") ?? "";
    expect(cursor).not.toBe("");
    const byName = await get(
      `/dashboard/keys?q=pager&sort=name&dir=asc&cursor=${encodeURIComponent(cursor)}`,
    );
    const firstByName = await get("/dashboard/keys?q=pager&sort=name&dir=asc");
    expect(byName.ids).toEqual(firstByName.ids);
    expect(byName.previous).toBeUndefined();
  });

  // The next page was read from the key the last one ended at, looked up anew: a key
  // revoked meanwhile (from its own page, in another tab) had moved to the revoked keys,
  // and the next page of the status order went on from there, past every other active key.
  it("goes on from where a page ended though the key there was revoked meanwhile", async () => {
    const movers: string[] = [];
    const store = openSqliteStore({ dataDir: server().dataDir });
    try {
      for (let i = 0; i < 55; i++) {
        const key = makeKey({ name: `mover-${i}` });
        await store.keys.insert(key);
        movers.push(key.id);
      }
    } finally {
      await store.close();
    }
    // By status, active first, then by id.
    const byId = [...movers].sort();
    const first = await get("/dashboard/keys?q=mover&sort=status&dir=asc");
    expect(first.ids).toEqual(byId.slice(0, 50));
    const endedAt = byId[49] ?? "";
    const revoking = openSqliteStore({ dataDir: server().dataDir });
    try {
      await revoking.keys.revoke(endedAt, isoTimestamp(Date.now()));
    } finally {
      await revoking.close();
    }
    const second = await get(first.next ?? "");
    expect(second.ids).toEqual([...byId.slice(50), endedAt]);
  });

  it("shows the first page for a cursor it did not give", async () => {
    const page = await get("/dashboard/keys?q=pager&cursor=not-a-cursor");
    expect(page.ids).toEqual(
      [...created]
        .reverse()
        .slice(0, 50)
        .map((key) => key.id),
    );
  });
});
