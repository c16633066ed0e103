import { builtinSkills } from "../skills/index.js";
import type { Config } from "./config.js";
import type { Logger } from "./core/logger.js";
import type { Store } from "./core/ports.js";
import { Skillport } from "./core/skillport.js";
import { openStore } from "./store/open-store.js";

/** The core with the built-in skills on the configured store; not started. */
export async function createSkillport(config: Config, logger: Logger, store?: Store): Promise<Skillport> {
  return new Skillport({
    store: store ?? (await openStore(config, logger)),
    skills: builtinSkills,
    logger,
    asyncConcurrency: config.asyncConcurrency,
    failedAuthPerMinute: config.failedAuthPerMinute,
    retentionDays: config.retentionDays,
    skillConfig: config.skillConfig,
    heartbeatMs: config.heartbeatMs,
  });
}
