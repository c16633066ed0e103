import { expect } from "vitest";
import { SkillportError } from "../../src/client/index.js";

/** Every item of an async iterator, in order. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The `SkillportError` a call rejects with (the test fails if it resolves or throws something else). */
export async function rejectionOf(promise: Promise<unknown>): Promise<SkillportError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(SkillportError);
    return err as SkillportError;
  }
  throw new Error("expected the call to reject");
}
