import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/core/clock.js";
import { ServiceError } from "../../src/core/errors.js";
import { buildHttpServer } from "../../src/http/server.js";
import { createLogger } from "../../src/logging.js";
import { makeCore } from "../core/make-core.js";
import { echo } from "../core/test-skills.js";
import { testHttpServerOptions } from "./http-server-options.js";

// A working secret sent where an id goes (a path, a skill_id, an execution id) came back
// whole in the refusal's message ("No execution has the id \"sk_live_…\""), which clients and
// proxies log: records and logs mask a working secret, error messages did not.
describe("a refusal never repeats a working secret the request held", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("masks it in the message and details of every refusal, on every surface", async () => {
    const core = await makeCore([echo], { clock: systemClock });
    cleanups.push(core.cleanup);
    const { secret } = await core.createKey();
    const server = buildHttpServer(core.skillport, testHttpServerOptions(createLogger("silent")));
    cleanups.push(() => server.close());
    server.open();
    const request = (method: "GET" | "POST", url: string, payload?: object) =>
      server.app.inject({
        method,
        url,
        ...(payload && { payload }),
        headers: { authorization: `Bearer ${secret}` },
      });
    const answers = [
      await request("GET", `/v1/executions/${secret}`),
      await request("GET", `/v1/skills/${secret}`),
      await request("GET", `/v1/${secret}`),
      await request("POST", "/v1/execute", { skill_id: secret, params: {} }),
      await request("POST", "/v1/execute", { skill_id: "test.echo", params: { [secret]: 1, text: "x" } }),
    ];
    for (const answer of answers) {
      expect(answer.statusCode, answer.body).toBeGreaterThanOrEqual(400);
      expect(answer.body).not.toContain(secret);
      expect(answer.body).toContain("sk_[redacted]");
    }
    expect(JSON.parse(answers[0]?.body ?? "").error.message).toBe('No execution has the id "sk_[redacted]".');
    // The error the core throws holds it masked, so MCP's texts and the CLI's lines do too.
    const thrown = new ServiceError("invalid_request", {
      message: `id: ${secret}`,
      details: [{ path: secret, message: `not ${secret}` }],
    });
    expect(thrown.message).toBe("id: sk_[redacted]");
    expect(thrown.details).toEqual([{ path: "sk_[redacted]", message: "not sk_[redacted]" }]);
  });
});
