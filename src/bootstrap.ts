import { builtinSkills } from "../skills/index.js";
import type { Config } from "./config.js";
import type { Logger } from "./core/logger.js";
import type { Store } from "./core/ports.js";
import { Skillport } from "./core/skillport.js";
import { UseLiteEmbedder } from "./embeddings/use-lite-embedder.js";
import { openStore } from "./store/open-store.js";

/** The core with the built-in skills on the configured store; not started. */
export function createSkillport(
  config: Config,
  logger: Logger,
  store: Store = openStore(config, logger),
): Skillport {
  return new Skillport({
    store,
    skills: builtinSkills,
    logger,
    asyncConcurrency: config.asyncConcurrency,
    failedAuthPerMinute: config.failedAuthPerMinute,
    retentionDays: config.retentionDays,
    skillConfig: config.skillConfig,
    adminToken: config.adminToken,
    // Created here, loaded only by `start()`, in the background (see UseLiteEmbedder).
    embedder: config.discoveryMode === "hybrid" ? new UseLiteEmbedder() : undefined,
  });
}
