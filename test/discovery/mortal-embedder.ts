import type { TextEmbedder } from "../../src/core/discovery/embedder.js";
import { hashVector } from "./hash-vector.js";

/**
 * A stand-in model whose thread can die (`kill`): what it was embedding fails, `loaded`
 * turns false and `onLost` is called, as the shipped one does; `load` loads it again.
 */
export class MortalEmbedder implements TextEmbedder {
  readonly modelId = "mortal-test-1";
  readonly dimensions = 8;
  loaded = false;
  loads = 0;
  onLost?: (err: Error) => void;
  private inFlight: ((err: Error) => void)[] = [];
  /** Holds every `embed` until `kill` (or forever). */
  hang = false;

  async load(): Promise<void> {
    this.loads += 1;
    this.loaded = true;
  }
  embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (!this.loaded) return Promise.reject(new Error("embedding thread is not running"));
    if (this.hang) return new Promise((_, reject) => this.inFlight.push(reject));
    return Promise.resolve(texts.map((text) => hashVector(text, this.dimensions)));
  }
  kill(): void {
    const err = new Error("embedding thread exited (code 1)");
    this.loaded = false;
    this.hang = false;
    for (const reject of this.inFlight.splice(0)) reject(err);
    this.onLost?.(err);
  }
  async close(): Promise<void> {}
}
