/**
 * A second process for cross-process tests: opens the SQLite store on the data dir given
 * as argument, prints `{"ready":true}`, then answers one JSON request per stdin line with
 * one JSON line on stdout. Run with `node --import tsx`.
 */
import { createInterface } from "node:readline";
import { openSqliteStore } from "../../../src/store/sqlite/index.js";
import type { StoreRequest } from "./store-child.js";

const dataDir = process.argv[2];
if (!dataDir) throw new Error("usage: store-process.ts <dataDir>");
const store = openSqliteStore({ dataDir });
const send = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function handle(request: StoreRequest): Promise<unknown> {
  switch (request.action) {
    case "insertKey":
      return store.keys.insert(request.key);
    case "revoke":
      return store.keys.revoke(request.id, request.revokedAt);
    case "findByHash":
      return (await store.keys.findByHash(request.hash)) ?? null;
    case "consume": {
      let allowed = 0;
      for (let i = 0; i < request.attempts; i++) {
        if ((await store.limiter.consume(request.bucket, request.windows, request.nowMs)).allowed) allowed++;
        if (request.pauseMs > 0) await pause(request.pauseMs);
      }
      return allowed;
    }
    case "close":
      await store.close();
      return null;
  }
}

send({ ready: true });
for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line) as StoreRequest;
  try {
    send({ result: await handle(request) });
  } catch (err) {
    send({ error: String(err) });
  }
  if (request.action === "close") break;
}
