import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Issue 7, "Soak": the short variant of `npm run soak` in every test run (the long one is
// run on demand). It asserts what must hold exactly — no 5xx, no network error, every
// accepted execution stored and nothing else — never a latency (figures vary with load).
const SOAK = fileURLToPath(new URL("../../bench/soak.mjs", import.meta.url));

interface Summary {
  requests: number;
  errors: number;
  limited_429: number;
  executions_accepted: number;
  records_stored: number;
  records_lost: number;
  records_unexpected: number;
}

describe("soak (short)", { timeout: 180_000 }, () => {
  it("serves a steady mixed load with no errors, and stores exactly the executions it accepted", async () => {
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [SOAK],
        {
          env: {
            ...process.env,
            SOAK_SECONDS: "15",
            SOAK_RATE: "40",
            SOAK_WINDOW_SECONDS: "5",
            SOAK_JSON: "1",
          },
          timeout: 170_000,
          maxBuffer: 16 * 1024 * 1024,
        },
        (err, stdout, stderr) => {
          if (err && !stdout.trim()) reject(new Error(`soak failed: ${err.message}\n${stderr}`));
          else resolve(stdout);
        },
      );
    });
    const { summary } = JSON.parse(output.trim().split("\n").at(-1) ?? "{}") as { summary: Summary };
    expect(summary.requests).toBeGreaterThan(0);
    expect(summary.errors).toBe(0);
    expect(summary.executions_accepted).toBeGreaterThan(0);
    expect(summary.records_lost).toBe(0);
    expect(summary.records_unexpected).toBe(0);
    expect(summary.records_stored).toBe(summary.executions_accepted);
    // The small key (10 a minute) was driven past its limit: the mix included refusals.
    expect(summary.limited_429).toBeGreaterThan(0);
  });
});
