import { afterEach, describe, expect, it, vi } from "vitest";
import { echo } from "../core/test-skills.js";
import { inProcessServer } from "./in-process-api.js";

describe("/metrics", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  // Every load gauge of one scrape comes from one reading: figures taken at one moment, and
  // the load read once per scrape, not once per gauge (left open in session 24).
  it("reads the process's load once per scrape, and exports it", async () => {
    const { core, server } = await inProcessServer([echo], cleanups);
    const load = vi.spyOn(core.skillport, "load");

    const res = await server.app.inject({ method: "GET", url: "/metrics" });

    expect(res.statusCode).toBe(200);
    expect(load).toHaveBeenCalledTimes(1);
    // At rest, so a reading now is what the scrape read.
    const { executions, workers } = core.skillport.load();
    expect(res.body).toMatch(
      new RegExp(`^skillport_executions_in_progress\\{state="running"\\} ${executions.running}$`, "m"),
    );
    expect(res.body).toMatch(
      new RegExp(`^skillport_executions_pending\\{measure="capacity"\\} ${executions.capacity}$`, "m"),
    );
    expect(res.body).toMatch(
      new RegExp(`^skillport_worker_pool\\{measure="threads"\\} ${workers.threads}$`, "m"),
    );
    expect(res.body).not.toMatch(/^skillport_redis_up/m);
    expect(res.body).toMatch(/^skillport_store_up 1$/m);
  });

  // Audit 26, finding 5: the store's outage shown as Redis's is (skillport_redis_up).
  it("exports skillport_store_up 0 when the core reports the store down", async () => {
    const { core, server } = await inProcessServer([echo], cleanups);
    vi.spyOn(core.skillport, "load").mockReturnValue({ ...core.skillport.load(), store: "down" });
    const res = await server.app.inject({ method: "GET", url: "/metrics" });
    expect(res.body).toMatch(/^skillport_store_up 0$/m);
  });
});
