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

// Regression: the Executions page filtered by a key id that names no key showed only "No
// executions", as for a real key that has not run anything yet (its select, listing only
// known keys, even showed "Any"); the Usage page already said the key is unknown.
describe("a dashboard page filtered by a key id that names no key", () => {
  it("says on the Executions page that no key has the id, as the Usage page does", async () => {
    const key = await core.keyFor({ name: "runner" });
    await core.run(key, "test.echo", { text: "one" });

    const executions = await page("/dashboard/executions?key_id=key_nosuchkey");
    expect(executions).toContain(
      '<p class="alert alert-error" role="status">No key has the id <code>key_nosuchkey</code>: no execution can match the filter.</p>',
    );
    expect(executions).toContain("<h2>No executions</h2><p>Nothing matches these filters.</p>");
    const usage = await page("/dashboard/usage?key=key_nosuchkey");
    expect(usage).toContain(
      '<p class="alert alert-error" role="status">No key has the id <code>key_nosuchkey</code>: the usage of all keys is shown.</p>',
    );
  });

  it("says nothing of the kind for a key that exists, with or without executions", async () => {
    const ran = await core.keyFor({ name: "runner" });
    await core.run(ran, "test.echo", { text: "one" });
    const idle = await core.keyFor({ name: "idle" });

    const filtered = await page(`/dashboard/executions?key_id=${ran.id}`);
    expect(filtered).toContain("test.echo");
    expect(filtered).not.toContain("No key has the id");
    const empty = await page(`/dashboard/executions?key_id=${idle.id}`);
    expect(empty).toContain("<h2>No executions</h2><p>Nothing matches these filters yet.");
    expect(empty).not.toContain("No key has the id");
  });

  it("escapes the id it repeats", async () => {
    const executions = await page(`/dashboard/executions?key_id=${encodeURIComponent("<b>key_x</b>")}`);
    expect(executions).toContain("No key has the id <code>&lt;b&gt;key_x&lt;/b&gt;</code>");
    expect(executions).not.toContain("<b>key_x</b>");
  });
});
