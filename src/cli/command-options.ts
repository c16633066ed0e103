import { type ParseArgsConfig, parseArgs } from "node:util";
import { meantNames } from "../core/member-names.js";

/**
 * A command line a command cannot run: the CLI prints the message with the command's own
 * usage and exits 2, as for any other usage error.
 */
export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * `parseArgs`, but an option the command does not take is refused in skillport's words,
 * naming the option it probably meant (`skillport mcp does not take --remot; did you mean
 * --remote?`). Node's own message for it advised passing the option after `--` as an
 * argument, which no command here takes.
 */
export function parseCommandArgs<T extends ParseArgsConfig>(
  command: string,
  config: T,
): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    const unknown = unknownOptionOf(err, config);
    if (unknown === undefined) throw err;
    const known = Object.keys(config.options ?? {});
    const guess = meantOption(unknown, known);
    throw new UsageError(`${command} does not take ${unknown}${guess ?? `: it takes ${listed(known)}.`}`);
  }
}

/**
 * The option `parseArgs` refused as unknown (`--pln`, `-x`), found again among its tokens
 * rather than read from Node's wording; undefined for any other error.
 */
export function unknownOptionOf(err: unknown, config: ParseArgsConfig): string | undefined {
  if ((err as NodeJS.ErrnoException).code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") return undefined;
  const { tokens } = parseArgs({ ...config, strict: false, tokens: true });
  const known = config.options ?? {};
  const unknown = tokens.find((token) => token.kind === "option" && !Object.hasOwn(known, token.name));
  return unknown?.kind === "option" ? unknown.rawName : undefined;
}

/** `; did you mean --plan?` for `--pln` among `known` (long names, without dashes), if any. */
export function meantOption(rawName: string, known: readonly string[]): string | undefined {
  if (!rawName.startsWith("--")) return undefined;
  const meant = meantNames(rawName.slice(2), known);
  return meant.length > 0 ? `; did you mean ${meant.map((name) => `--${name}`).join(" or ")}?` : undefined;
}

/** `--port, --host and --data-dir`: options as a sentence lists them (given without dashes). */
export function listed(names: readonly string[]): string {
  const options = names.map((name) => `--${name}`);
  return options.length > 1 ? `${options.slice(0, -1).join(", ")} and ${options.at(-1)}` : options.join("");
}
