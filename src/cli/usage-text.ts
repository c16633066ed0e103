import {
  type CommandSpec,
  optionOf,
  optionUsage,
  SHARED_OPTIONS,
  slotOptions,
  usageWords,
} from "./command-spec.js";

/** Where the help's lines wrap, to read in an 80-to-100-column terminal. */
const WIDTH = 92;
const COMMAND_INDENT = "  ";
const CONTINUED = "        ";

/**
 * A command's lines of the help: its usage (wrapped, without breaking a bracket), what it
 * does, and the notes of the options it shows, all built from `spec` (command-spec.ts).
 */
export function commandHelp(spec: CommandSpec): string[] {
  const lines = wrap(usageWords(spec), COMMAND_INDENT, CONTINUED);
  if (spec.summary !== undefined) {
    const last = lines.length - 1;
    const withSummary = `${lines[last]}   ${spec.summary}`;
    if (withSummary.length <= WIDTH) lines[last] = withSummary;
    else lines.push(...wrap(spec.summary.split(" "), CONTINUED, CONTINUED));
  }
  for (const name of spec.layout.flatMap(slotOptions)) {
    const option = optionOf(spec, name);
    if (option?.note === undefined || Object.hasOwn(SHARED_OPTIONS, name)) continue;
    lines.push(...wrap(`--${name} ${option.note}`.split(" "), CONTINUED, CONTINUED));
  }
  return lines;
}

/** The whole help: every command's lines, then the options every command takes. */
export function helpText(commands: readonly CommandSpec[]): string {
  const shared = Object.entries(SHARED_OPTIONS).map(([name, option]) => {
    const short = "short" in option ? ` (-${option.short})` : "";
    const note = "note" in option ? ` (${option.note})` : "";
    return `${optionUsage(name, option)}${short}${note}`;
  });
  return [
    "skillport — find and run skills for AI agents",
    "",
    "Usage:",
    ...commands.flatMap(commandHelp),
    `${COMMAND_INDENT}skillport --version`,
    "",
    `Every command takes ${shared.join(" and ")}.`,
  ].join("\n");
}

/** `words` as lines of at most WIDTH characters (a longer word keeps its own line). */
function wrap(words: readonly string[], first: string, rest: string): string[] {
  const lines: string[] = [];
  let line = first;
  for (const word of words) {
    const blank = line === first || line === rest;
    if (!blank && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = rest + word;
    } else {
      line = blank ? line + word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines;
}
