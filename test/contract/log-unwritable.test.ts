import { closeSync, existsSync, openSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bodyOf, type ExecutionRecord, type StartOptions, startServer, type TestServer } from "./harness.js";

/** `use` of a server whose `streams` (stdout, stderr) are /dev/full; stopped, and the device closed, after. */
async function withServerWritingToFull(
  streams: readonly ("stdout" | "stderr")[],
  use: (server: TestServer) => Promise<void>,
): Promise<void> {
  const full = openSync("/dev/full", "w");
  try {
    const options: StartOptions = Object.fromEntries(streams.map((stream) => [stream, full]));
    const server = await startServer(options);
    try {
      await use(server);
    } finally {
      await server.stop();
    }
  } finally {
    closeSync(full);
  }
}

// A log that cannot be written (a closed terminal: EIO; a full disk: ENOSPC) made pino throw,
// and at the exit that followed its final flush retried the write for ever: the process
// hung at start, never listening, or, after its terminal closed, neither serving nor
// stopping, its runs left `running`. /dev/full fails every write with ENOSPC.
describe.runIf(existsSync("/dev/full"))("serve with a log it cannot write", { timeout: 60_000 }, () => {
  it("serves, says once on stderr that the log stopped, and stops on a signal with exit 0", async () => {
    await withServerWritingToFull(["stdout"], async (server) => {
      const key = await server.createRoomyKey({ name: "unlogged" });
      const res = await server.request("POST", "/v1/execute", {
        key: key.secret,
        json: { skill_id: "util.wait", params: { ms: 100 } },
      });
      expect(res.status, res.text).toBe(200);
      expect(bodyOf<ExecutionRecord>(res).status).toBe("completed");
      expect(server.logs()).toContain(
        "skillport: the log (stdout) cannot be written (ENOSPC); logging stops\n",
      );
      server.child.kill("SIGHUP");
      expect(await server.exited).toBe(0);
    });
  });

  // Audit, session 38: a stderr no one read any more (`serve 2>&1 | head`) ended the process
  // at its next line there (the store's "no API key yet" hint at start, a dashboard sign-in
  // link), or hung it, deaf to SIGTERM, through the crash handler's flush of the log.
  it("serves and stops on a signal when stderr cannot be written either", async () => {
    // No key in its store yet: the server's start says how to create one, on stderr.
    await withServerWritingToFull(["stdout", "stderr"], async (server) => {
      const key = await server.createRoomyKey({ name: "unheard" });
      const res = await server.request("POST", "/v1/execute", {
        key: key.secret,
        json: { skill_id: "math.evaluate", params: { expression: "6*7" } },
      });
      expect(bodyOf<ExecutionRecord>(res)).toMatchObject({ status: "completed", result: { value: 42 } });
      server.child.kill("SIGTERM");
      expect(await server.exited).toBe(0);
    });
  });
});
