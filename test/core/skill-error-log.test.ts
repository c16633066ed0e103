import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/core/clock.js";
import { generateSecret } from "../../src/core/keys/secret.js";
import { capturingLogger } from "../support/capturing-logger.js";
import { type Core, makeCore } from "./make-core.js";
import { testSkills, throwsText } from "./test-skills.js";

// A skill's unexpected error was logged as it was, so a password in the
// connection URL a driver quotes reached the log (and an MCP client's relayed log).

const lines: Record<string, unknown>[] = [];
const capturing = () => capturingLogger(lines);

let core: Core;

beforeEach(async () => {
  lines.length = 0;
  core = await makeCore(testSkills, { clock: systemClock, logger: capturing() });
});
afterEach(() => core.cleanup());

describe("the log line of a skill's unexpected error", () => {
  it("masks the credentials of URLs and working skillport secrets in its message and stack", async () => {
    const key = await core.keyFor();
    const secret = generateSecret("production");
    const message = `connect failed: postgres://admin:hunter2@db/x; retried https://api.example/v1?api_key=abc123&page=2 with ${secret}`;
    const { record } = await core.run(key, throwsText.id, { message });
    expect(record.error?.message).toBe("The skill test.throws_text failed unexpectedly.");
    const line = lines.find((entry) => entry.msg === "skill threw an unexpected error");
    expect(line).toMatchObject({ skill_id: "test.throws_text", execution_id: record.id });
    // A masked copy of the error (pino's serializer writes its class as `type`), never the original.
    const err = line?.err as Error & { stack: string };
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe("Error");
    expect(err.message).toBe(
      "connect failed: postgres://admin:[redacted]@db/x; retried https://api.example/v1?api_key=[redacted]&page=2 with sk_[redacted]",
    );
    expect(err.stack).toContain("postgres://admin:[redacted]@db/x");
    for (const leaked of ["hunter2", "abc123", secret]) expect(JSON.stringify(line)).not.toContain(leaked);
  });
});
