import { parseArgs } from "node:util";
import {
  EDITABLE_KEY_FIELDS,
  FIXED_KEY_FIELDS,
  KEY_ATTRIBUTES,
  type KeyAttribute,
  keyFieldsInWords,
} from "../core/keys/key-fields.js";
import { looksLikeSecret } from "../core/keys/secret.js";
import {
  listed,
  meantOption,
  parseProblem,
  refuseRepeatedOption,
  UsageError,
  unknownOptionOf,
} from "./command-options.js";
import {
  type CommandSpec,
  checkedSpec,
  type OptionSlot,
  type OptionTable,
  parsingOptions,
  SHARED_OPTIONS,
  slotOptions,
} from "./command-spec.js";

/** Every option some `keys` action takes; each action accepts only its own (KEYS_ACTIONS). */
const KEYS_OPTIONS = {
  name: { type: "string", value: "NAME", means: "the key's name" },
  scope: { type: "string", value: "read-only|full-access", means: "read-only or full-access" },
  plan: { type: "string", value: "free|pro|enterprise", means: "free, pro or enterprise" },
  "limit-minute": { type: "string", value: "N", means: "the key's requests a minute, 1 to 1,000,000,000" },
  "limit-day": { type: "string", value: "N", means: "the key's requests a day, 1 to 1,000,000,000" },
  env: {
    type: "string",
    value: "production|staging|development",
    means: "production, staging or development",
  },
  owner: { type: "string", value: "NAME", means: "the owner the key's records belong to" },
  "expires-at": {
    type: "string",
    value: "ISO",
    means: "the key's last day, such as 2027-01-01, or a date-time with Z or an offset",
    note: '2027-01-01: the key works through that day (UTC), the dashboard\'s "Expires on"; or a date-time with Z or an offset (2027-01-01T12:00:00Z)',
  },
  grace: {
    type: "string",
    value: "24h",
    means: "how long the old secret keeps working: seconds, or a number with s, m, h or d",
  },
  json: { type: "boolean" },
} as const satisfies OptionTable;

type KeysOption = keyof typeof KEYS_OPTIONS;

/** The options that set each of a key's attributes (tsc asks for a new attribute's). */
export const OPTIONS_OF_KEY_FIELD: Record<KeyAttribute, readonly KeysOption[]> = {
  name: ["name"],
  scope: ["scope"],
  plan: ["plan"],
  limits: ["limit-minute", "limit-day"],
  environment: ["env"],
  owner: ["owner"],
  expiresAt: ["expires-at"],
};

/** The slots of the options that set `fields`: an attribute set by two (limits) takes both together. */
const slotsOf = (fields: readonly KeyAttribute[]): OptionSlot<KeysOption>[] =>
  fields.map((field) => {
    const options = OPTIONS_OF_KEY_FIELD[field];
    return options.length === 1 && options[0] !== undefined ? options[0] : { together: options };
  });
const optionsOf = (fields: readonly KeyAttribute[]) => fields.flatMap((field) => OPTIONS_OF_KEY_FIELD[field]);
export type KeysAction = "create" | "list" | "edit" | "revoke" | "roll";

interface ActionSpec {
  /**
   * Its usage and its own options (`--data-dir` and `--help` are everyone's); its `argument`
   * is the one KEY_ID it takes, if any, and it takes no other positional.
   */
  spec: CommandSpec;
  /** What it takes, said when it is given another action's option. */
  takes: string;
}

/** A `keys` action's spec: the options its layout shows are the ones it takes. */
function keysAction(
  action: KeysAction,
  layout: readonly OptionSlot<KeysOption>[],
  more: Pick<CommandSpec, "argument" | "summary"> & { required?: readonly KeysOption[] } = {},
): CommandSpec {
  const options = Object.fromEntries(
    layout.flatMap(slotOptions).map((name) => [name, KEYS_OPTIONS[name]]),
  ) as Partial<typeof KEYS_OPTIONS>;
  return checkedSpec({ name: `keys ${action}`, options, layout, ...more } as CommandSpec);
}

const CREATE = keysAction("create", [...slotsOf(KEY_ATTRIBUTES), "json"], { required: ["name", "scope"] });
const LIST = keysAction("list", ["json"]);
const EDIT = keysAction("edit", [...slotsOf(EDITABLE_KEY_FIELDS), "json"], {
  argument: "KEY_ID",
  summary: "same secret, new name, plan or limits",
});
const ROLL = keysAction("roll", ["grace", "json"], {
  argument: "KEY_ID",
  summary: "new secret; the old one expires after the grace",
});
/** What `keys edit` changes: its options but `--json`. */
const EDIT_CHANGES: readonly KeysOption[] = optionsOf(EDITABLE_KEY_FIELDS);
/** What an action takes: its own options and the `--data-dir` every command takes. */
const taken = (spec: CommandSpec) => `${listed(Object.keys(spec.options))} (and --data-dir)`;

/**
 * One option table serving every action let `keys edit ID --scope read-only` print
 * "Edited" and change nothing: an operator who meant to downgrade a key saw success. Each
 * action now names what it takes, and anything else is refused. What it says it takes and
 * its usage line are built from its options (the shared `--data-dir` added to the first),
 * so the two cannot disagree.
 */
export const KEYS_ACTIONS: Record<KeysAction, ActionSpec> = {
  create: { spec: CREATE, takes: `it takes ${taken(CREATE)}` },
  list: { spec: LIST, takes: `it takes only ${taken(LIST)}: it lists every key` },
  edit: { spec: EDIT, takes: `it changes only ${listed(EDIT_CHANGES)}` },
  revoke: {
    spec: keysAction("revoke", [], { argument: "KEY_ID" }),
    takes: "it takes only a KEY_ID (and --data-dir)",
  },
  roll: { spec: ROLL, takes: `it takes only ${taken(ROLL)}` },
};

/** Every `keys` action's spec, in the order the help shows them. */
export const KEYS_COMMANDS: readonly CommandSpec[] = Object.values(KEYS_ACTIONS).map((action) => action.spec);

/** Every option of every action, which `keys` parses before refusing another action's. */
const ALL_OPTIONS = parsingOptions(KEYS_OPTIONS);

/** What `keys edit` cannot change: said so, with what to do instead. */
const FIXED_AT_CREATION: readonly KeysOption[] = optionsOf(FIXED_KEY_FIELDS);
const EVERY_ACTION: readonly string[] = Object.keys(SHARED_OPTIONS);

function parseAll(args: string[]) {
  return parseArgs(parsing(args));
}

function parsing(args: string[]) {
  return { args, options: ALL_OPTIONS, allowPositionals: true, tokens: true } as const;
}

type KeysValues = ReturnType<typeof parseAll>["values"];

/** What `keys` runs: an action with its KEY_ID when it takes one, and its options. */
export type KeysArgs =
  | { action: "create" | "list"; id: undefined; values: KeysValues }
  | { action: "edit" | "revoke"; id: string; values: KeysValues }
  | { action: "roll"; id: string; values: KeysValues; graceSeconds: number };

/** `--grace` of `keys roll`: seconds, or a number with s, m, h or d. */
const GRACE = /^(\d+)([smhd]?)$/;
const GRACE_UNIT_SECONDS: Record<string, number> = { "": 1, s: 1, m: 60, h: 3600, d: 86_400 };

/** `--grace` in seconds (default 24 hours); a value it does not take is a usage error. */
function graceSecondsOf(command: string, given = "24h"): number {
  const grace = GRACE.exec(given);
  if (!grace) {
    throw new UsageError(`${command}: --grace: seconds, or a number with s, m, h or d, such as 24h.`);
  }
  return Number(grace[1]) * (GRACE_UNIT_SECONDS[grace[2] ?? ""] ?? 1);
}

/** The actions as the refusal of an unknown one lists them. */
const ACTIONS_IN_WORDS = Object.keys(KEYS_ACTIONS)
  .join(", ")
  .replace(/, ([^,]+)$/, " and $1");

/**
 * Parses `skillport keys ACTION ...`. A missing or unknown action, an unknown option, an
 * option of another action, a missing value, a missing KEY_ID or a stray argument throws
 * a `UsageError` naming it and the action (`skillport keys revoke ...`, as every command's
 * refusals read), with the option probably meant or the value it takes; the CLI prints it
 * with the action's usage, before any store is opened.
 */
export function parseKeysArgs(args: string[]): KeysArgs {
  const [action, ...rest] = args;
  if (!isKeysAction(action)) {
    // `skillport keys --json`: an option where the action goes.
    if (action === undefined || action.startsWith("-")) {
      throw new UsageError(`skillport keys needs an action first: ${ACTIONS_IN_WORDS}.`);
    }
    // An argument in the action's place may be a pasted secret: named, never echoed.
    const shown = looksLikeSecret(action) ? "what looks like a key's secret" : JSON.stringify(action);
    throw new UsageError(`skillport keys has no action ${shown}: its actions are ${ACTIONS_IN_WORDS}.`);
  }
  const spec = KEYS_ACTIONS[action];
  const command = `skillport ${spec.spec.name}`;
  let parsed: ReturnType<typeof parseAll>;
  try {
    parsed = parseAll(rest);
  } catch (err) {
    const unknown = unknownOptionOf(err, parsing(rest));
    if (unknown === undefined) {
      const problem = parseProblem(spec.spec, err, parsing(rest));
      if (problem === undefined) throw err;
      throw new UsageError(problem);
    }
    const guess = meantOption(unknown, [...Object.keys(spec.spec.options), ...EVERY_ACTION]);
    throw new UsageError(`${command} does not take ${unknown}${guess ?? `: ${spec.takes}.`}`);
  }
  const { values, positionals, tokens } = parsed;
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    const option = token.name as KeysOption;
    if (Object.hasOwn(spec.spec.options, option) || EVERY_ACTION.includes(option)) continue;
    const fixed =
      action === "edit" && FIXED_AT_CREATION.includes(option)
        ? `. A key's ${keyFieldsInWords(FIXED_KEY_FIELDS)} cannot be edited: create a new key with the ones you want (skillport keys create), move its clients to it, then revoke this one`
        : "";
    throw new UsageError(`${command} does not take --${option}: ${spec.takes}${fixed}.`);
  }
  refuseRepeatedOption(command, tokens);
  const takesId = spec.spec.argument !== undefined;
  const [id, ...extra] = positionals;
  const stray = takesId ? extra : positionals;
  const first = stray[0];
  if (first !== undefined) {
    const what = takesId ? "one KEY_ID" : "no KEY_ID or other argument";
    // A stray argument may be a pasted secret: named, but never echoed.
    const shown = looksLikeSecret(first) ? "what looks like a key's secret" : JSON.stringify(first);
    throw new UsageError(`${command} takes ${what}; unexpected: ${shown}.`);
  }
  if (action === "create" || action === "list") return { action, id: undefined, values };
  if (id === undefined) {
    throw new UsageError(`${command} needs a KEY_ID: the key's id (key_…), from skillport keys list.`);
  }
  if (action === "roll") return { action, id, values, graceSeconds: graceSecondsOf(command, values.grace) };
  return { action, id, values };
}

function isKeysAction(action: string | undefined): action is KeysAction {
  return action !== undefined && Object.hasOwn(KEYS_ACTIONS, action);
}
