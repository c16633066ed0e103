import { describe, expect, it } from "vitest";
import type { SkillDocument } from "../../src/core/discovery/document.js";
import type { TextEmbedder } from "../../src/core/discovery/embedder.js";
import { SemanticIndex } from "../../src/core/discovery/semantic-index.js";
import { exampleRequests, semanticText, skillVector } from "../../src/core/discovery/semantic-text.js";

/** A stand-in model: texts starting with "x", "y" or "z" embed as that axis; it records what it was given. */
class AxisEmbedder implements TextEmbedder {
  readonly modelId = "axis-test";
  readonly dimensions = 3;
  loaded = false;
  readonly embedded: string[] = [];
  async load() {
    this.loaded = true;
  }
  async embed(texts: readonly string[]) {
    this.embedded.push(...texts);
    return texts.map((text) =>
      Float32Array.from(["x", "y", "z"].map((axis) => (text.startsWith(axis) ? 1 : 0))),
    );
  }
  async close() {}
}

/** A skill whose text (title first) embeds as the x axis. */
function document(id: string, examples: string[]): SkillDocument {
  return {
    id,
    tags: [],
    fields: {
      id,
      title: `x ${id}`,
      tags: "",
      description: "",
      params: "",
      examples: examples.join("\n"),
      extra: "",
    },
  };
}

const rounded = (vector: Float32Array | undefined) =>
  [...(vector ?? [])].map((value) => Number(value.toFixed(6)));

describe("a skill's vector", () => {
  it("is its text's vector moved half-way towards the mean of its example requests' vectors", () => {
    const text = Float32Array.from([1, 0, 0]);
    expect(skillVector(text, [])).toBe(text);
    // 0.5·x + 0.25·y + 0.25·z, unit length.
    const norm = Math.hypot(0.5, 0.25, 0.25);
    expect(rounded(skillVector(text, [Float32Array.from([0, 1, 0]), Float32Array.from([0, 0, 1])]))).toEqual(
      rounded(Float32Array.from([0.5 / norm, 0.25 / norm, 0.25 / norm])),
    );
  });

  it("is built by the semantic index from the text and each example request embedded on its own", async () => {
    const embedder = new AxisEmbedder();
    const semantic = new SemanticIndex(embedder, undefined);
    const withExamples = document("with", ["y is one request", "  z is  another "]);
    const without = document("without", []);
    semantic.add(withExamples);
    semantic.add(without);
    await semantic.start();
    await semantic.idle();
    expect(exampleRequests(withExamples)).toEqual(["y is one request", "z is another"]);
    expect(embedder.embedded).toEqual(
      expect.arrayContaining([
        semanticText(withExamples),
        "y is one request",
        "z is another",
        semanticText(without),
      ]),
    );
    expect(rounded(semantic.vectors.vectorOf("with"))).toEqual(
      rounded(
        skillVector(Float32Array.from([1, 0, 0]), [
          Float32Array.from([0, 1, 0]),
          Float32Array.from([0, 0, 1]),
        ]),
      ),
    );
    expect(rounded(semantic.vectors.vectorOf("without"))).toEqual([1, 0, 0]);
  });
});
