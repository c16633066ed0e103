import type { Config } from "../config.js";
import type { Logger } from "../core/logger.js";
import type { Store } from "../core/ports.js";
import { openSqliteStore } from "./sqlite/index.js";

/** Opens the store the configuration names (the embedded SQLite file by default). */
export function openStore(config: Pick<Config, "dataDir">, logger: Logger): Store {
  return openSqliteStore({ dataDir: config.dataDir, logger });
}
