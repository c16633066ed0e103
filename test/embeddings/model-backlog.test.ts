import { describe, expect, it } from "vitest";
import { MAX_BATCH_CHARS, MAX_BATCH_TEXTS } from "../../src/embeddings/embedding-worker-source.js";
import { MAX_WAIT_MS, ModelBacklog } from "../../src/embeddings/model-backlog.js";

function backlog() {
  let now = 1_000;
  const waiting = new ModelBacklog(() => now);
  return { waiting, advance: (ms: number) => (now += ms) };
}

describe("the model's backlog", () => {
  // 32 clients of short queries on two busy cores: a few texts waited 2.2 s, never 64 of
  // them nor 2,000 characters, and every discover queued behind them.
  it("is busy once its oldest text has waited longer than a pass takes, however few texts wait", () => {
    const { waiting, advance } = backlog();
    const first = waiting.sent(["forecast for Paris"]);
    advance(MAX_WAIT_MS);
    const second = waiting.sent(["order a pizza"]);
    expect(waiting.busy).toBe(false);
    advance(1);
    expect(waiting.busy).toBe(true);
    waiting.answered(first);
    // The oldest now is the second, sent 1 ms ago.
    expect(waiting.busy).toBe(false);
    expect(waiting.size).toBe(1);
    waiting.answered(second);
    advance(10_000);
    expect([waiting.busy, waiting.size]).toEqual([false, 0]);
  });

  it("is busy once a whole pass waits, by texts or by characters", () => {
    const { waiting } = backlog();
    const texts = waiting.sent(Array.from({ length: MAX_BATCH_TEXTS - 1 }, () => "a"));
    expect(waiting.busy).toBe(false);
    const one = waiting.sent(["b"]);
    expect(waiting.busy).toBe(true);
    waiting.answered(texts);
    waiting.answered(one);
    const long = waiting.sent(["x".repeat(MAX_BATCH_CHARS - 1)]);
    expect(waiting.busy).toBe(false);
    waiting.sent(["y"]);
    expect(waiting.busy).toBe(true);
    waiting.answered(long);
    expect(waiting.busy).toBe(false);
  });

  it("counts texts answered once, however often told", () => {
    const { waiting } = backlog();
    const sent = waiting.sent(["a", "b"]);
    waiting.answered(sent);
    waiting.answered(sent);
    expect(waiting.size).toBe(0);
  });
});
