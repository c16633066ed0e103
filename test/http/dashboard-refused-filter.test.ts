import { afterEach, describe, expect, it } from "vitest";
import { echo } from "../core/test-skills.js";
import { signedInGet } from "./dashboard-session.js";
import { inProcessServer } from "./in-process-api.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function refusedPage(url: string): Promise<string> {
  const { core, server } = await inProcessServer([echo], cleanups);
  const res = await signedInGet(server, core.skillport, url);
  expect(res.statusCode, url).toBe(400);
  return res.body;
}

// Regression: a page address holding a filter the page does not take (a status that is
// none, a cursor from elsewhere, a limit over the cap) was refused with one way on, back to
// the overview, though the page itself works without the filter.
describe("a dashboard page refused for a filter in its address", () => {
  it("says what is wrong and leads to the same page without its filters", async () => {
    const status = await refusedPage("/dashboard/executions?status=bogus&skill_id=test.echo");
    expect(status).toContain(
      "<p>status: must be one of: queued, running, completed, failed, timed_out, cancelled</p>",
    );
    expect(status).toContain(
      '<a class="button" href="/dashboard/executions">Show this page without its filters</a>',
    );

    const cursor = await refusedPage("/dashboard/executions?cursor=zzz");
    expect(cursor).toContain("cursor: not a cursor this API returned for this listing");
    expect(cursor).toContain(
      '<a class="button" href="/dashboard/executions">Show this page without its filters</a>',
    );
  });

  it("still leads back to the dashboard when the address had no filter to drop", async () => {
    const { core, server } = await inProcessServer([echo], cleanups);
    const res = await signedInGet(server, core.skillport, "/dashboard/executions/exec_nosuch");
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain('<a class="button" href="/dashboard">Back to the dashboard</a>');
  });
});
