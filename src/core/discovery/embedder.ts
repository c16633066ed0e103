/**
 * A sentence-embedding model, as discovery needs it (a port: the core never loads a model
 * itself; `src/embeddings/` adapts the shipped one). Vectors are unit length, so a dot
 * product is their cosine similarity.
 */
export interface TextEmbedder {
  /** Names the model and its version: cached vectors are only reused under the same id. */
  readonly modelId: string;
  readonly dimensions: number;
  /** Starts loading the model if not yet done; resolves when `embed` can answer. */
  load(): Promise<void>;
  /** True once `load` has finished: until then discovery ranks lexically. */
  readonly loaded: boolean;
  /**
   * True while a text sent now would wait behind at least a whole pass of the model's
   * work, when the model can tell: discovery then answers lexically rather than queue a
   * query behind it (`SemanticIndex.wouldWait`).
   */
  readonly busy?: boolean;
  /**
   * Set by the index using the model: called when a loaded model stops answering (its
   * thread died), after which `loaded` is false until `load` has loaded it again.
   */
  onLost?: (err: Error) => void;
  /** One unit vector per text, in order. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  /** Frees the model (and any thread it runs on). */
  close(): Promise<void>;
}
