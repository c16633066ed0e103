import { type StoreConfig, warnOfUnknownVariables } from "../config.js";
import { DATA_DIR_SETTING, describeStore, missingStore } from "../store/open-store.js";
import { commandStoreConfig } from "./command-config.js";
import type { CommandSpec } from "./command-spec.js";

/** A command's store, and what to say about it (`describeStore`). */
export interface CommandStore {
  config: StoreConfig;
  /** `the SQLite store /srv/data/skillport.db`, or a database's URL without its password. */
  name: string;
  /**
   * Says on stderr that the command made the store, when it will (`mayCreate` and none
   * there): called once the store is open, so a store that could not be made (a read-only
   * disk) is not announced as made.
   */
  sayIfCreated(): void;
}

/**
 * The store a `keys` or `learning` command works on (`--data-dir` over SKILLPORT_DATA_DIR),
 * after warning on stderr of every `SKILLPORT_*` variable nothing reads, as `serve` and `mcp`
 * log them: a misspelt SKILLPORT_DATA_DIR would quietly mean `./data`.
 * `mayCreate`: the command may create the store (`keys create`, the first key), and says
 * so once it did (`sayIfCreated`); every other command refuses a data directory that holds none
 * (`missingStore`). Undefined, after saying why on stderr, when the command must not run.
 */
export function commandStore(
  spec: CommandSpec,
  values: Record<string, unknown>,
  { mayCreate = false } = {},
): CommandStore | undefined {
  const command = `skillport ${spec.name}`;
  warnOfUnknownVariables({ warn: (_fields, message) => console.error(`${command}: warning: ${message}`) });
  // A `--data-dir` it refuses is named as the option (a usage error), as `serve` names it.
  const config = commandStoreConfig(spec, values);
  const missing = missingStore(config);
  if (missing && !mayCreate) {
    console.error(`${command}: ${missing}`);
    return undefined;
  }
  const sayIfCreated = () => {
    if (!missing) return;
    // On stderr, so that it is seen with --json too: the key works only on a server using this directory.
    console.error(
      `${command}: there was no store in ${config.dataDir}, so this created one. A server accepts keys from it only when it runs with this data directory (${DATA_DIR_SETTING}).`,
    );
  };
  return { config, name: describeStore(config), sayIfCreated };
}
