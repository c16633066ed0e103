import { afterEach, describe, expect, it, vi } from "vitest";
import { Skillport } from "../../src/core/skillport.js";
import { openMemoryStore } from "../../src/store/memory/index.js";
import { MortalEmbedder } from "../discovery/mortal-embedder.js";
import { capturedLog } from "../support/captured-log.js";
import { echo } from "./test-skills.js";

describe("the embedding model's problems, in the service's log", () => {
  let skillport: Skillport | undefined;
  afterEach(async () => {
    await skillport?.close();
  });

  it("says when the model stopped and is loaded again, and when it failed a query", async () => {
    const log = capturedLog();
    const embedder = new MortalEmbedder();
    skillport = new Skillport({ store: openMemoryStore(), skills: [echo], logger: log.logger, embedder });
    await skillport.start();
    const { secret } = await skillport.keys.create({ name: "test", scope: "full-access" });
    const key = await skillport.keys.authenticate(secret);
    const ranked = async (query = "echo some text") =>
      (await skillport?.catalog.discover({ query, limit: 5 }, key))?.ranking;
    // The model loads in the background, shortly after start.
    await vi.waitFor(async () => expect(await ranked()).toEqual({ mode: "hybrid", semantic: "ready" }), {
      timeout: 10_000,
    });
    embedder.kill();
    expect(log.lines).toContainEqual(
      expect.objectContaining({
        level: 40,
        msg: "the embedding model stopped; loading it again (ranking lexically meanwhile)",
      }),
    );
    await vi.waitFor(async () => expect(await ranked()).toEqual({ mode: "hybrid", semantic: "ready" }), {
      timeout: 10_000,
    });
    embedder.embed = () => Promise.reject(new Error("embedding failed: out of memory"));
    // A query not embedded before (a recent one keeps its vector).
    expect(await ranked("echo other words")).toEqual({ mode: "lexical", semantic: "failed" });
    expect(log.lines).toContainEqual(
      expect.objectContaining({
        level: 40,
        msg: "the embedding model failed a query; it was answered lexically",
      }),
    );
  });
});
