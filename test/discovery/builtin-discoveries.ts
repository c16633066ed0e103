import { afterAll, beforeAll } from "vitest";
import { builtinSkills } from "../../skills/index.js";
import { createDiscovery, type Discovery } from "../../src/core/discovery/registry-discovery.js";
import { SemanticIndex } from "../../src/core/discovery/semantic-index.js";
import { SkillRegistry } from "../../src/core/skills/registry.js";
import { UseLiteEmbedder } from "../../src/embeddings/use-lite-embedder.js";

/** The built-in skills' discoveries, hybrid on the real model and lexical, as a suite's tests read them. */
export interface BuiltinDiscoveries {
  /** Every skill's vector built before the suite's first test. */
  readonly hybrid: Discovery;
  readonly lexical: Discovery;
  /** The hybrid one's semantic index (to embed a test's own texts with the same model). */
  readonly semantic: SemanticIndex;
  readonly model: UseLiteEmbedder;
}

/**
 * Discoveries over the built-in skills for the calling `describe`: made ready in its
 * `beforeAll` (loading the model takes seconds) and closed in its `afterAll`. Read them
 * inside tests only.
 */
export function builtinDiscoveries(): BuiltinDiscoveries {
  const model = new UseLiteEmbedder();
  const lexical = createDiscovery(new SkillRegistry(builtinSkills));
  let ready: { hybrid: Discovery; semantic: SemanticIndex } | undefined;
  beforeAll(async () => {
    const semantic = new SemanticIndex(model, undefined);
    const hybrid = createDiscovery(new SkillRegistry(builtinSkills), { semantic });
    await hybrid.start();
    await semantic.idle();
    ready = { hybrid, semantic };
  }, 120_000);
  afterAll(async () => {
    ready?.hybrid.close();
    lexical.close();
    await model.close();
  });
  const made = () => {
    if (!ready) throw new Error("builtinDiscoveries() is read inside tests only, after its beforeAll");
    return ready;
  };
  return {
    get hybrid() {
      return made().hybrid;
    },
    get semantic() {
      return made().semantic;
    },
    lexical,
    model,
  };
}
