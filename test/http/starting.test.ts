import { afterEach, describe, expect, it } from "vitest";
import { buildHttpServer } from "../../src/http/server.js";
import { createLogger } from "../../src/logging.js";
import { makeCore } from "../core/make-core.js";
import { echo } from "../core/test-skills.js";
import { testHttpServerOptions } from "./http-server-options.js";

describe("a server not yet opened", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  // `serve` binds its port before the core starts (a server that cannot listen must have
  // taken over nothing), and opens once it has started: requests meanwhile are refused.
  it("answers every request 503 service_unavailable with Retry-After until opened, then serves", async () => {
    const core = await makeCore([echo]);
    cleanups.push(core.cleanup);
    const { secret } = await core.createKey();
    const server = buildHttpServer(core.skillport, testHttpServerOptions(createLogger("silent")));
    cleanups.push(() => server.close());
    const discover = () =>
      server.app.inject({
        method: "POST",
        url: "/v1/discover",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        payload: { query: "echo" },
      });

    const refusedBeforeRouting = () => server.app.inject({ method: "GET", url: "/v1/skills/%zz" });
    for (const res of [
      await discover(),
      await server.app.inject({ method: "GET", url: "/healthz" }),
      await refusedBeforeRouting(),
    ]) {
      expect(res.statusCode).toBe(503);
      expect(res.headers["retry-after"]).toBe("1");
      expect(res.json().error).toMatchObject({
        code: "service_unavailable",
        message: "The service is starting.",
      });
    }

    server.open();
    expect((await discover()).statusCode).toBe(200);
    expect((await server.app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);
    expect((await refusedBeforeRouting()).statusCode).toBe(401);
  });
});
