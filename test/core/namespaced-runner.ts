import { once } from "node:events";
import { makeExecution } from "../store/contract/fixtures.js";
import { runnerOnStore } from "./runner-on-store.js";

/**
 * A runner in a process of its own, which runner-liveness.test.ts starts in a PID namespace
 * of its own (as in a container). Arguments: the SQLite data directory, then
 * - `hold ID`: stores a running execution ID as this runner's, prints a line, and stays up
 *   (beating) until its stdin closes;
 * - `start`: starts, which takes over what runners it judges gone left, and stops.
 */
const [dataDir = "", role, executionId] = process.argv.slice(2);
const { store, runner } = runnerOnStore(dataDir, { heartbeatMs: 200 });
await runner.start();
if (role === "hold") {
  await store.executions.save(
    makeExecution({ id: executionId, status: "running", runnerId: runner.runnerId }),
  );
  console.log(JSON.stringify({ pid: process.pid }));
  process.stdin.resume();
  await once(process.stdin, "end");
}
await runner.stop(0);
await store.close();
