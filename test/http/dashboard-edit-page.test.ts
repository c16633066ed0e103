import { afterEach, describe, expect, it } from "vitest";
import { echo } from "../core/test-skills.js";
import { signedInGet } from "./dashboard-session.js";
import { inProcessServer } from "./in-process-api.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

// Regression: the edit page offered the name, plan and limits and said nothing of the
// others, so someone come to change a key's scope or owner looked for a field that is not there.
describe("a key's edit page", () => {
  it("says which of the key's attributes cannot be edited and what to do instead", async () => {
    const { core, server } = await inProcessServer([echo], cleanups);
    const key = await core.keyFor({ name: "ci" });
    const res = await signedInGet(server, core.skillport, `/dashboard/keys/${key.id}/edit`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(
      `A key's scope, owner, environment and expiry cannot be edited: for other ones, <a href="/dashboard/keys/new">create a new key</a>, move its clients to it, then revoke this one.`,
    );
  });
});
