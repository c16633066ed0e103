import { BroadcastChannel } from "node:worker_threads";
import { Tinypool } from "tinypool";
import { onStopSignals } from "../stop-signals.js";
import {
  downChannelName,
  type FromHost,
  type HostError,
  type HostSetup,
  type ToHost,
  type UpMessage,
  upChannelName,
} from "./worker-messages.js";

/**
 * The skill host: a child process of the server that holds the pool of skill worker
 * threads (compiled to `dist/src/isolation/skill-host.js`; see SkillHostProcess). A worker
 * thread's heap limit does not always contain it: one array or string grown past the
 * limit can abort the whole process that owns the thread (nodejs/node#47224), and a
 * 150-byte JMESPath expression or `format(1, 1e9)` does that. The process it aborts is
 * this one; the server answers those runs failed and starts a new host.
 *
 * It relays: runs and their terminations from the server to the pool, the workers' up
 * channel (progress, logs, owner-data calls) to the server, and the server's down
 * channel (aborts, replies) to the workers.
 */

const setup = JSON.parse(process.argv[2] ?? "{}") as HostSetup;
/** Tells the server, while it listens (a message after it left is moot). */
const send = (message: FromHost) => {
  if (process.connected) process.send?.(message);
};

/** How long the pool may take to be destroyed once the server is gone. */
const LEAVE_GRACE_MS = 1_000;

const pool = new Tinypool({
  filename: setup.workerUrl,
  // All threads start at once and stay: a thread started on demand would make its
  // first caller wait for the skills to load.
  minThreads: setup.threads,
  maxThreads: setup.threads,
  maxQueue: setup.maxQueue,
  // Measured: with Atomics, a task that can be aborted (ours all can) costs ~3x more
  // per run than with plain message passing.
  useAtomics: false,
  resourceLimits: { maxOldGenerationSizeMb: setup.memoryMb },
  workerData: setup.worker,
});
pool.on("error", (err: unknown) => send({ type: "pool-error", error: hostError(err) }));

const up = new BroadcastChannel(upChannelName(setup.worker.channelName));
const down = new BroadcastChannel(downChannelName(setup.worker.channelName));
up.onmessage = (event) => send({ type: "up", message: (event as { data: UpMessage }).data });

/** The terminations of the runs under way, by run id. */
const terminations = new Map<number, AbortController>();

process.on("message", (message: ToHost) => {
  switch (message.type) {
    case "run":
      run(message.runId, message);
      break;
    case "terminate":
      terminations.get(message.runId)?.abort();
      break;
    case "down":
      down.postMessage(message.message);
      break;
    case "ping":
      send({ type: "pong" });
      break;
  }
});
// Signals sent to the server's process group reach this process too: Ctrl-C in a terminal,
// systemd's default stop, Procfile runners. The server decides when runs end (a graceful
// shutdown lets them finish), then closes the channel; dying here would fail them at once.
onStopSignals(() => {});
// The server is gone (or closed the channel): nothing is left to run for. The pool is
// destroyed first, so that workers end cleanly; should that hang, the process goes anyway.
function leave(): void {
  setTimeout(() => process.exit(0), LEAVE_GRACE_MS).unref();
  void pool.destroy().finally(() => process.exit(0));
}
process.on("disconnect", leave);
// A server that died (or stopped) while this module was loading closed the channel before
// the handler above existed: it would never run, and this process would live on alone.
if (!process.connected) leave();

function run(runId: number, { task }: Extract<ToHost, { type: "run" }>): void {
  const termination = new AbortController();
  terminations.set(runId, termination);
  pool
    .run(task, { signal: termination.signal })
    .then(
      (result) => send({ type: "ran", runId, result }),
      (err: unknown) => send({ type: "failed", runId, error: hostError(err) }),
    )
    .finally(() => terminations.delete(runId));
}

function hostError(err: unknown): HostError {
  if (!(err instanceof Error)) return { name: "Error", message: String(err) };
  const code = (err as { code?: unknown }).code;
  return { name: err.name, message: err.message, ...(typeof code === "string" && { code }) };
}
