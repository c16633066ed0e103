import { type Config, ConfigError, loadConfig, loadStoreConfig, type StoreConfig } from "../config.js";
import { UsageError } from "./command-options.js";
import { type CommandSpec, optionOf } from "./command-spec.js";

/** The configuration of a command that runs the service (`serve`, `mcp`): `settingsOf` with `loadConfig`. */
export function commandConfig(spec: CommandSpec, values: Record<string, unknown>): Config {
  return settingsOf(spec, values, loadConfig);
}

/** The store settings of a command that works on a store (`keys`, `learning`): `settingsOf` with `loadStoreConfig`. */
export function commandStoreConfig(spec: CommandSpec, values: Record<string, unknown>): StoreConfig {
  return settingsOf(spec, values, loadStoreConfig);
}

/**
 * What `load` reads from the environment, with a command's options in place of the
 * variables they stand for (`--port 9000` is `SKILLPORT_PORT=9000`: the option's
 * `variable`). A value `load` refuses is named as the user gave it:
 * `skillport serve: --port: must be a whole number`, a usage error, when it came from an
 * option; by its variable, as any bad setting, when it came from the environment.
 */
function settingsOf<Settings>(
  spec: CommandSpec,
  values: Record<string, unknown>,
  load: (env: NodeJS.ProcessEnv) => Settings,
): Settings {
  const optionOfVariable = new Map<string, string>();
  const env = { ...process.env };
  for (const [name, value] of Object.entries(values)) {
    const option = optionOf(spec, name);
    if (option?.type !== "string" || option.variable === undefined || typeof value !== "string") continue;
    env[option.variable] = value;
    optionOfVariable.set(option.variable, name);
  }
  try {
    return load(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const fromOptions = err.problems.some(({ variable }) => optionOfVariable.has(variable));
    if (!fromOptions) throw err;
    const named = err.problems.map(({ variable, message }) => {
      const option = optionOfVariable.get(variable);
      return `${option === undefined ? variable : `--${option}`}: ${message}`;
    });
    throw new UsageError(`skillport ${spec.name}: ${named.join("; ")}`);
  }
}
