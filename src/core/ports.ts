/**
 * The ports the core needs from storage (DESIGN.md: Store, Limiter, Queue), one file each in
 * `ports/` (the queue is `RunnerQueue`, part of `ExecutionStore`), re-exported here so the
 * core and the adapters import them from one place. Interfaces only. Adapters live in
 * `src/store/` (SQLite embedded; PostgreSQL + Redis for scale-out; in memory for unit
 * tests, `store/memory/`, the plainest reading of these ports) and all pass one contract
 * test suite. Methods are async so that a networked adapter fits, except the few
 * that must answer at once (`KeyStore.markUsed`, `KeyStore.markRefusedUse`, `Store.isOutage`,
 * `Store.refusesUntilRestart`, `SignalChannel.subscribe`).
 */

export type * from "./ports/discovery-data.js";
export type * from "./ports/execution-store.js";
export type * from "./ports/idempotency-store.js";
export type * from "./ports/key-store.js";
export type * from "./ports/limiter.js";
export type * from "./ports/owner-data.js";
export type * from "./ports/runner-queue.js";
export type * from "./ports/signals.js";
export type * from "./ports/store.js";
export type * from "./ports/usage-store.js";
