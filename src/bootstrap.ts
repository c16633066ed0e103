import type { Config } from "./config.js";
import type { Logger } from "./core/logger.js";
import type { Store } from "./core/ports.js";
import { Skillport } from "./core/skillport.js";
import { checkSkills } from "./core/skills/registry.js";
import type { Skill } from "./core/skills/skill.js";
import { warnOfPoorMetadata } from "./core/skills/skill-metadata.js";
import { checkSkillSettings } from "./core/skills/skill-settings.js";
import { UseLiteEmbedder } from "./embeddings/use-lite-embedder.js";
import { WorkerPoolExecutor } from "./isolation/worker-pool-executor.js";
import { GENERIC_TOOL_NAMES } from "./mcp/generic-tools.js";
import { warnOfSkillsPastToolCap } from "./mcp/tool-catalog.js";
import { warnOfToolNames } from "./mcp/tool-names.js";
import { checkToolTags } from "./mcp/tool-tags.js";
import { runningFromSources, runtimeFile } from "./package-files.js";
import { SKILL_SOURCES, serverSkills } from "./skill-sources.js";
import { openStore } from "./store/open-store.js";

/** The core with the built-in skills on the configured store; not started. */
export async function createSkillport(config: Config, logger: Logger, store?: Store): Promise<Skillport> {
  const skills = serverSkills();
  // Before anything reads them: a malformed skill stops start-up naming the skill and the rule.
  checkSkills(skills);
  warnOfPoorMetadata(skills, logger);
  // Checked first: a setting that cannot work stops start-up before anything is opened.
  const skillConfig = skillSettings(skills, config.skillConfig);
  checkToolTags(config.mcp.tags, skills);
  // In the catalog's order, by id: the later of two ids that map to one name is renamed.
  warnOfToolNames(skills.map((skill) => skill.id).sort(), GENERIC_TOOL_NAMES, logger);
  warnOfSkillsPastToolCap(skills, config.mcp, logger);
  const opened = store ?? (await openStore(config, logger));
  const executor = new WorkerPoolExecutor({
    hostUrl: runtimeFile("src/isolation/skill-host.ts"),
    // From a build, the worker runs tsc's modules (not the CLI bundle's); from the
    // sources, the sources, through an entry that gives the thread tsx's loader.
    workerUrl: runningFromSources
      ? runtimeFile("src/isolation/skill-worker-from-sources.mjs")
      : runtimeFile("src/isolation/skill-worker.ts"),
    sources: SKILL_SOURCES,
    threads: config.workerThreads,
    memoryMb: config.workerMemoryMb,
    // At worst every execution the process holds waits here (see ConcurrencyGate).
    maxQueue: config.maxPendingExecutions,
    logger,
  });
  return new Skillport({
    store: opened,
    skills,
    logger,
    asyncConcurrency: config.asyncConcurrency,
    failedAuthPerMinute: config.failedAuthPerMinute,
    retentionDays: config.retentionDays,
    skillConfig,
    // Created here, loaded only by `start()`, in the background (see UseLiteEmbedder).
    embedder: config.discoveryMode === "hybrid" ? new UseLiteEmbedder() : undefined,
    learnWindowMs: config.discoveryLearnWindowMs,
    adminToken: config.adminToken,
    maxConcurrentPerKey: config.maxConcurrentPerKey,
    maxPendingExecutions: config.maxPendingExecutions,
    executor,
    heartbeatMs: config.heartbeatMs,
  });
}

/**
 * SKILLPORT_SKILL_CONFIG checked against the skills' settings before anything is opened,
 * as a configuration error. The core checks it again when it is built, for whoever else
 * builds it; by then the store is open, which a mistyped setting must not have caused.
 */
function skillSettings(skills: readonly Skill[], given: Config["skillConfig"]): Config["skillConfig"] {
  try {
    return checkSkillSettings(skills, given);
  } catch (err) {
    throw new Error(`Invalid configuration: SKILLPORT_SKILL_CONFIG: ${(err as Error).message}`);
  }
}
