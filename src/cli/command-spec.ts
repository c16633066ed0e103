/**
 * A CLI option as parsing and the usage text both read it: a usage line once named an
 * option parsing no longer took, and an option could be taken without a usage line naming
 * it. Each command's options are declared once, here in this shape, and both are built from
 * them (`parsingOptions`, `usageLine`).
 */
export type CliOption =
  | {
      type: "string";
      /** Its value in a usage line: `NAME`, `N`, `read-only|full-access`. */
      value: string;
      /** What the value is, said when it is missing: `the key's name`. */
      means: string;
      /** Said below the usage lines of the commands that take it. */
      note?: string;
      /**
       * The configuration variable it stands for (`SKILLPORT_PORT`): given, it replaces the
       * variable's value, and a value the configuration refuses is refused as the option's.
       */
      variable?: string;
    }
  | { type: "boolean"; short?: string; note?: string };

/**
 * Where an option stands in a usage line: alone, given `together` with others
 * (`[--limit-minute N --limit-day N]`), or `either` one of several (`[--data-dir DIR | --remote URL]`).
 */
export type OptionSlot<O extends string> = O | { together: readonly O[] } | { either: readonly O[] };

export interface CommandSpec<T extends OptionTable = OptionTable> {
  /** What follows `skillport`: `serve`, `keys create`. */
  name: string;
  /** The argument it takes before its options (`KEY_ID`), if any. */
  argument?: string;
  /** Every option it takes but the shared ones, by name. */
  options: T;
  /**
   * Its options in the order its usage line shows them: every one of `options` (checked by
   * `checkedSpec`), and a shared one where it belongs in the line too (`mcp`'s `--data-dir`).
   */
  layout: readonly OptionSlot<string>[];
  /** The options it cannot run without, shown without brackets. */
  required?: readonly string[];
  /** What it does, in a few words, after or under its usage line. */
  summary?: string;
}

export type OptionTable = Readonly<Record<string, CliOption>>;

/** The options every command takes, said once under the commands rather than on each line. */
export const SHARED_OPTIONS = {
  "data-dir": {
    type: "string",
    value: "DIR",
    means: "the data directory of the store, such as ./data",
    note: "default: SKILLPORT_DATA_DIR or ./data",
    variable: "SKILLPORT_DATA_DIR",
  },
  help: { type: "boolean", short: "h" },
} as const satisfies Record<string, CliOption>;

export type SharedOption = keyof typeof SHARED_OPTIONS;

/** The options of a slot, in order. */
export function slotOptions<O extends string>(slot: OptionSlot<O>): readonly O[] {
  if (typeof slot !== "object") return [slot];
  return "together" in slot ? slot.together : slot.either;
}

/**
 * `spec`, refused at start-up (in every test that loads it) when its layout leaves out an
 * option it takes or shows one it does not: the usage line would then hide or invent one.
 */
export function checkedSpec<T extends OptionTable>(
  spec: CommandSpec<T> & {
    layout: readonly OptionSlot<(keyof T | SharedOption) & string>[];
    required?: readonly (keyof T & string)[];
  },
): CommandSpec<T> {
  const shown: readonly string[] = spec.layout.flatMap(slotOptions);
  const taken = Object.keys(spec.options);
  const missing = taken.filter((name) => !shown.includes(name));
  const extra = shown.filter((name) => !taken.includes(name) && !Object.hasOwn(SHARED_OPTIONS, name));
  if (missing.length > 0 || extra.length > 0 || new Set(shown).size !== shown.length) {
    throw new Error(
      `skillport ${spec.name}: its usage line must show each option it takes once (left out: ${missing.join(", ") || "none"}; not taken: ${extra.join(", ") || "none"})`,
    );
  }
  return spec;
}

/** `parseArgs`' options for a table of them, typed so that its `values` are. */
export type ParsingOptions<T extends OptionTable> = {
  [K in keyof T]: { type: T[K]["type"]; short?: string };
};

/** `parseArgs`' options for a command's `own` and the shared ones (`--data-dir`, `--help`). */
export function parsingOptions<T extends OptionTable>(own: T): ParsingOptions<T & typeof SHARED_OPTIONS> {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {};
  for (const [name, option] of Object.entries({ ...SHARED_OPTIONS, ...own })) {
    options[name] = { type: option.type, ...("short" in option && { short: option.short }) };
  }
  return options as ParsingOptions<T & typeof SHARED_OPTIONS>;
}

/**
 * The options `spec` takes as its refusals list them: its line's, then the shared ones the
 * line leaves out but `--help` (which only prints the usage).
 */
export function optionsToName(spec: CommandSpec): string[] {
  const shown: string[] = spec.layout.flatMap(slotOptions);
  return [
    ...shown,
    ...Object.keys(SHARED_OPTIONS).filter((name) => !shown.includes(name) && name !== "help"),
  ];
}

/** The definition of an option `spec` takes (its own or a shared one), by name. */
export function optionOf(spec: CommandSpec, name: string): CliOption | undefined {
  const all: OptionTable = { ...SHARED_OPTIONS, ...spec.options };
  return Object.hasOwn(all, name) ? all[name] : undefined;
}

/** `--name NAME`, `--json`. */
export function optionUsage(name: string, option: CliOption): string {
  return option.type === "string" ? `--${name} ${option.value}` : `--${name}`;
}

/**
 * The words of `spec`'s usage line: `skillport keys create --name NAME … [--json]`. A
 * required option is bare, any other in brackets, with the options given with it.
 */
export function usageWords(spec: CommandSpec): string[] {
  const words = ["skillport", spec.name, ...(spec.argument === undefined ? [] : [spec.argument])];
  for (const slot of spec.layout) {
    const names = slotOptions(slot);
    const shown = names.map((name) => {
      const option = optionOf(spec, name);
      return option ? optionUsage(name, option) : `--${name}`;
    });
    const joined = shown.join(typeof slot === "object" && "either" in slot ? " | " : " ");
    const required = names.every((name) => spec.required?.includes(name));
    words.push(required ? joined : `[${joined}]`);
  }
  return words;
}

/** `spec`'s usage on one line, as errors show it. */
export function usageLine(spec: CommandSpec): string {
  return usageWords(spec).join(" ");
}
