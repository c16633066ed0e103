import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const HOST = new URL("../../dist/src/isolation/skill-host.js", import.meta.url);
const WORKER_URL = new URL("../../dist/src/isolation/skill-worker.js", import.meta.url);
const FIXTURES_URL = new URL("./fixtures/skills.mjs", import.meta.url);

/** The built skill host, as the server forks it, on the fixture skills. */
function forkHost(): ChildProcess {
  const setup = {
    workerUrl: WORKER_URL.href,
    threads: 1,
    memoryMb: 64,
    maxQueue: 10,
    worker: { channelName: `skill-host-exit-${process.pid}`, skillModules: [FIXTURES_URL.href] },
  };
  return fork(fileURLToPath(HOST), [JSON.stringify(setup)], { stdio: ["ignore", "ignore", "ignore", "ipc"] });
}

describe("the skill host process", () => {
  it("exits when the server goes away, even at once after starting it, with a run under way", async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const host = forkHost();
      const exited = once(host, "exit");
      host.send({
        type: "run",
        runId: 1,
        task: { executionId: "e1", skillId: "fixture.busy", params: { ms: 60_000 }, owner: "o", config: {} },
      });
      // The channel closes while the host is still loading: its handler for that did not exist yet.
      host.disconnect();
      const gone = await Promise.race([
        exited.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 15_000)),
      ]);
      if (!gone) host.kill("SIGKILL");
      expect(gone).toBe(true);
    }
  }, 60_000);
});
