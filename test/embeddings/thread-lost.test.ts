import type { Worker } from "node:worker_threads";
import { afterAll, describe, expect, it } from "vitest";
import { UseLiteEmbedder } from "../../src/embeddings/use-lite-embedder.js";

describe("the shipped model's thread, when it dies", () => {
  const model = new UseLiteEmbedder();
  afterAll(() => model.close());

  it("fails what it was embedding, says it was lost, and runs again on a new thread when loaded", async () => {
    const lost: string[] = [];
    model.onLost = (err) => lost.push(err.message);
    await model.load();
    const [before] = await model.embed(["send a message to a channel"]);
    const inFlight = model.embed(["convert 5 miles to km"]);
    // As a crash would (out of memory, a fault in the model's code): not through `close`.
    await (model as unknown as { worker: Worker }).worker.terminate();
    await expect(inFlight).rejects.toThrow(/embedding thread exited/);
    expect(lost).toEqual([expect.stringMatching(/embedding thread exited/)]);
    expect(model.loaded).toBe(false);
    await model.load();
    expect(model.loaded).toBe(true);
    const [after] = await model.embed(["send a message to a channel"]);
    expect(after).toEqual(before);
  }, 120_000);

  it("is not said lost when closed, and loads no more", async () => {
    const closing = new UseLiteEmbedder();
    const lost: string[] = [];
    closing.onLost = (err) => lost.push(err.message);
    await closing.load();
    await closing.close();
    expect(lost).toEqual([]);
    // A reload planned when a thread died starts none once closed.
    await expect(closing.load()).rejects.toThrow(/closed/);
    expect(closing.loaded).toBe(false);
  }, 120_000);
});
