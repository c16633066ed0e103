import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KeyPageQuery, KeyStore, Store } from "../../src/core/ports.js";
import { PICKER_KEYS } from "../../src/http/dashboard/key-picker.js";
import type { HttpServer } from "../../src/http/server.js";
import type { Core } from "../core/make-core.js";
import { echo } from "../core/test-skills.js";
import { signedInCookie } from "./dashboard-session.js";
import { inProcessServer } from "./in-process-api.js";

/** What the dashboard asked the key store for: each listing's limit, and each by-id read. */
const reads = { listLimits: [] as number[], byId: 0, byIds: [] as string[][] };

/** The core's key store, its reads noted in `reads`. */
function noting(store: Store): Store {
  const keys: KeyStore = Object.create(store.keys);
  keys.listPage = (query: KeyPageQuery) => {
    reads.listLimits.push(query.limit);
    return store.keys.listPage(query);
  };
  keys.findById = (id) => {
    reads.byId++;
    return store.keys.findById(id);
  };
  keys.findByIds = (ids) => {
    reads.byIds.push([...ids]);
    return store.keys.findByIds(ids);
  };
  return { ...store, keys } as Store;
}

const cleanups: (() => Promise<void>)[] = [];
let core: Core;
let http: HttpServer;

beforeEach(async () => {
  ({ core, server: http } = await inProcessServer([echo], cleanups, { wrapStore: noting }));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function page(url: string): Promise<string> {
  const cookie = await signedInCookie(http, core.skillport);
  reads.listLimits = [];
  reads.byId = 0;
  reads.byIds = [];
  const res = await http.app.inject({ method: "GET", url, headers: { cookie } });
  expect(res.statusCode, url).toBe(200);
  return res.body;
}

// Each view of these pages read every key, a page of the store at a time, for a select of
// them all and to name the rows' keys: with many keys, a full read per view.
describe("the Executions and Usage pages, with more keys than their filters list", () => {
  it("read at most one page of keys to pick from, and the rows' keys in one read by their ids", async () => {
    const keys = [];
    for (let i = 0; i < PICKER_KEYS + 30; i++) keys.push(await core.createKey({ name: `key ${i}` }));
    const [a, b] = [await core.keyFor({ name: "runner a" }), await core.keyFor({ name: "runner b" })];
    await core.run(a, "test.echo", { text: "one" });
    await core.run(b, "test.echo", { text: "two" });

    const executions = await page("/dashboard/executions");
    expect(executions).toContain("runner a");
    expect(executions).toContain("runner b");
    expect(reads.listLimits.length).toBeLessThanOrEqual(1);
    expect(reads.listLimits.every((limit) => limit <= PICKER_KEYS + 1)).toBe(true);
    expect(reads.byId).toBe(0);
    expect(reads.byIds).toHaveLength(1);
    expect(new Set(reads.byIds[0])).toEqual(new Set([a.id, b.id]));

    // The key field says where to find a key's id: the API Keys page's search.
    for (const [text, field] of [
      [executions, "filter-key_id"],
      [await page("/dashboard/usage"), "usage-key"],
    ] as const) {
      expect(text).toContain(`aria-describedby="${field}-hint"`);
      expect(text).toMatch(
        new RegExp(
          `id="${field}-hint">A key(?:'|&#39;|&#x27;)s id: <a href="/dashboard/keys">search API Keys</a>`,
        ),
      );
    }

    const filtered = await page(`/dashboard/executions?key_id=${a.id}`);
    expect(filtered).toContain("runner a");
    expect(filtered).not.toContain("runner b");
    expect(reads.listLimits.every((limit) => limit <= PICKER_KEYS + 1)).toBe(true);

    const usage = await page(`/dashboard/usage?key=${b.id}`);
    expect(usage).toContain("Limits now: runner b");
    expect(reads.listLimits.length).toBeLessThanOrEqual(1);
    expect(reads.listLimits.every((limit) => limit <= PICKER_KEYS + 1)).toBe(true);
  });
});
