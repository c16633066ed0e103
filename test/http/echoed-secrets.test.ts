import { afterEach, describe, expect, it } from "vitest";
import { ServiceError } from "../../src/core/errors.js";
import { echo } from "../core/test-skills.js";
import { inProcessApi } from "./in-process-api.js";

// A working secret sent where an id goes (a path, a skill_id, an execution id) came back
// whole in the refusal's message ("No execution has the id \"sk_live_…\""), which clients and
// proxies log: records and logs mask a working secret, error messages did not.
describe("a refusal never repeats a working secret the request held", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("masks it in the message and details of every refusal, on every surface", async () => {
    const { secret, request } = await inProcessApi([echo], cleanups);
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
