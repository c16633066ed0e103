import { type ParseArgsConfig, parseArgs } from "node:util";
import { looksLikeSecret } from "../core/keys/secret.js";
import { meantNames } from "../core/member-names.js";
import {
  type CommandSpec,
  type OptionTable,
  optionOf,
  optionsToName,
  type ParsingOptions,
  parsingOptions,
  type SHARED_OPTIONS,
} from "./command-spec.js";

/**
 * A command line a command cannot run: the CLI prints the message with the command's own
 * usage and exits 2, as for any other usage error.
 */
export class UsageError extends Error {
  override name = "UsageError";
}

type CommandArgs<T extends OptionTable> = ReturnType<
  typeof parseArgs<{ args: string[]; options: ParsingOptions<T & typeof SHARED_OPTIONS> }>
>;

/**
 * `parseArgs` on the options of `spec` (command-spec.ts), but a command line it refuses is
 * refused in skillport's words, naming the command and the option: an option the command
 * does not take, with the one it probably meant (`skillport mcp does not take --remot; did
 * you mean --remote?`), an option missing its value, with what it takes, and so on
 * (`parseProblem`). Node's own words advised passing an unknown option after `--`, which
 * no command here takes, and said `Option '--name <value>' argument missing`.
 */
export function parseCommandArgs<T extends OptionTable>(
  spec: CommandSpec<T>,
  args: string[],
): CommandArgs<T> {
  const config = { args, options: parsingOptions(spec.options) };
  const command = `skillport ${spec.name}`;
  try {
    const parsed = parseArgs(config);
    refuseRepeatedOption(command, parseArgs({ ...config, tokens: true }).tokens);
    return parsed;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const unknown = unknownOptionOf(err, config);
    if (unknown === undefined) {
      const problem = parseProblem(spec, err, config);
      if (problem === undefined) throw err;
      throw new UsageError(problem);
    }
    const guess = meantOption(unknown, Object.keys(config.options));
    throw new UsageError(
      `${command} does not take ${unknown}${guess ?? `: it takes ${listed(optionsToName(spec))}.`}`,
    );
  }
}

/**
 * What is wrong with a command line `parseArgs` refused for a reason other than an unknown
 * option, in skillport's words (`skillport keys create: --name needs a value (the key's
 * name).`); undefined for any other error. The option is found again among parseArgs'
 * tokens rather than read from Node's wording; a value is never repeated when it may be a
 * key's secret.
 */
export function parseProblem(spec: CommandSpec, err: unknown, config: ParseArgsConfig): string | undefined {
  const code = (err as NodeJS.ErrnoException).code;
  const command = `skillport ${spec.name}`;
  const { tokens } = parseArgs({ ...config, strict: false, tokens: true, allowPositionals: true });
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    for (const token of tokens) {
      if (token.kind !== "option") continue;
      const option = optionOf(spec, token.name);
      if (option?.type === "boolean" && token.value !== undefined) {
        return `${command}: ${token.rawName} takes no value: give ${token.rawName} alone, or leave it out.`;
      }
      if (option?.type !== "string") continue;
      if (token.value === undefined) return `${command}: ${token.rawName} needs a value (${option.means}).`;
      if (!token.inlineValue && token.value.startsWith("-")) {
        // `--name --scope x`: parseArgs took the next option for the value and refused it.
        const needs = `${command}: ${token.rawName} needs a value (${option.means})`;
        if (optionOf(spec, token.value.replace(/^--?/, "")) !== undefined)
          return `${needs} before ${token.value}.`;
        // A value that starts with a dash is taken only after `=`.
        if (looksLikeSecret(token.value))
          return `${needs}; one that starts with a dash is written ${token.rawName}=VALUE.`;
        return `${needs}; to give ${JSON.stringify(token.value)}, which starts with a dash, write ${token.rawName}=${token.value}.`;
      }
    }
  }
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") {
    const stray = tokens.find((token) => token.kind === "positional");
    if (stray?.kind !== "positional") return undefined;
    // A stray argument may be a pasted secret (`skillport mcp sk_live_…`): named, never echoed.
    const shown = looksLikeSecret(stray.value)
      ? "what looks like a key's secret"
      : JSON.stringify(stray.value);
    const takes =
      spec.argument === undefined ? "no argument, only options" : `only ${spec.argument} and options`;
    return `${command} takes ${takes}; unexpected: ${shown}.`;
  }
  return undefined;
}

/**
 * Refuses an option given twice (no option takes several values): parseArgs keeps the last
 * value without a word, so `--limit-minute 100 … --limit-minute 10` in a script that builds
 * its arguments would quietly apply 10.
 */
export function refuseRepeatedOption(
  command: string,
  tokens: readonly { kind: string; name?: string; rawName?: string }[],
): void {
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== "option" || token.name === undefined) continue;
    if (seen.has(token.name)) {
      throw new UsageError(`${command}: ${token.rawName} is given more than once; give it once.`);
    }
    seen.add(token.name);
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
