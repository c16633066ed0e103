import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ApiKey } from "../../../src/core/keys/api-key.js";
import type { LimitWindow } from "../../../src/core/ports.js";

/** What the test asks of the other process (see store-process.ts). */
export type StoreRequest =
  | { action: "insertKey"; key: ApiKey }
  | { action: "revoke"; id: string; revokedAt: string }
  | { action: "findByHash"; hash: string }
  | {
      action: "consume";
      bucket: string;
      windows: LimitWindow[];
      nowMs: number;
      attempts: number;
      /** Pause between attempts, so that two processes interleave. */
      pauseMs: number;
    }
  | { action: "close" };

const SCRIPT = fileURLToPath(new URL("./store-process.ts", import.meta.url));

/** A real second process holding its own store on the same data dir. */
export class StoreChild {
  private readonly lines: string[] = [];
  private waiting: ((line: string) => void) | undefined;
  private stderr = "";
  private exited = false;

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    let buffered = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
        this.push(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
      }
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      this.stderr += chunk;
    });
    child.on("exit", (code) => {
      this.exited = true;
      this.push(JSON.stringify({ error: `exited with ${code}: ${this.stderr}` }));
    });
  }

  /** Spawns the process and waits until its store is open. */
  static async start(dataDir: string): Promise<StoreChild> {
    const child = spawn(process.execPath, ["--import", "tsx", SCRIPT, dataDir], { stdio: "pipe" });
    const storeChild = new StoreChild(child);
    const hello = JSON.parse(await storeChild.nextLine()) as { ready?: boolean; error?: string };
    if (!hello.ready) throw new Error(`store process failed to start: ${hello.error}`);
    return storeChild;
  }

  /** Sends one request and returns the answer (requests are answered in order). */
  async call<T>(request: StoreRequest): Promise<T> {
    this.child.stdin.write(`${JSON.stringify(request)}\n`);
    const answer = JSON.parse(await this.nextLine()) as { result?: T; error?: string };
    if (answer.error !== undefined) throw new Error(answer.error);
    return answer.result as T;
  }

  /** Closes the store and waits for the process to end. */
  async stop(): Promise<void> {
    if (this.exited) return;
    const exit = new Promise((resolve) => this.child.once("exit", resolve));
    await this.call({ action: "close" });
    this.child.stdin.end();
    await exit;
  }

  private push(line: string): void {
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve(line);
    } else {
      this.lines.push(line);
    }
  }

  private nextLine(): Promise<string> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }
}
