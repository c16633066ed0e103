import { parseArgs } from "node:util";
import {
  EDITABLE_KEY_FIELDS,
  FIXED_KEY_FIELDS,
  KEY_ATTRIBUTES,
  type KeyAttribute,
  keyFieldsInWords,
} from "../core/keys/key-fields.js";
import { looksLikeSecret } from "../core/keys/secret.js";
import { listed, meantOption, unknownOptionOf } from "./command-options.js";

/** Every option some `keys` action takes; each action accepts only its own (KEYS_ACTIONS). */
const ALL_OPTIONS = {
  name: { type: "string" },
  scope: { type: "string" },
  plan: { type: "string" },
  "limit-minute": { type: "string" },
  "limit-day": { type: "string" },
  env: { type: "string" },
  owner: { type: "string" },
  "expires-at": { type: "string" },
  grace: { type: "string" },
  json: { type: "boolean" },
  "data-dir": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type KeysOption = keyof typeof ALL_OPTIONS;

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

const optionsOf = (fields: readonly KeyAttribute[]) => fields.flatMap((field) => OPTIONS_OF_KEY_FIELD[field]);
export type KeysAction = "create" | "list" | "edit" | "revoke" | "roll";

interface ActionSpec {
  usage: string;
  /** Its own options; `--data-dir` and `--help` are everyone's. */
  options: readonly KeysOption[];
  /** Whether it takes one KEY_ID (and nothing else) or no positional at all. */
  takesId: boolean;
  /** What it takes, said when it is given another action's option. */
  takes: string;
}

const CREATE_OPTIONS: readonly KeysOption[] = [...optionsOf(KEY_ATTRIBUTES), "json"];
const LIST_OPTIONS: readonly KeysOption[] = ["json"];
/** What `keys edit` changes: its options but `--json`. */
const EDIT_CHANGES: readonly KeysOption[] = optionsOf(EDITABLE_KEY_FIELDS);
const ROLL_OPTIONS: readonly KeysOption[] = ["grace", "json"];

/**
 * One option table serving every action let `keys edit ID --scope read-only` print
 * "Edited" and change nothing: an operator who meant to downgrade a key saw success. Each
 * action now names what it takes, and anything else is refused. What it says it takes is
 * built from its options, so the two cannot disagree.
 */
export const KEYS_ACTIONS: Record<KeysAction, ActionSpec> = {
  create: {
    usage:
      "skillport keys create --name NAME --scope read-only|full-access [--plan free|pro|enterprise] [--limit-minute N --limit-day N] [--env production|staging|development] [--owner NAME] [--expires-at ISO] [--json]",
    options: CREATE_OPTIONS,
    takesId: false,
    takes: `it takes ${listed(CREATE_OPTIONS)}`,
  },
  list: {
    usage: "skillport keys list [--json]",
    options: LIST_OPTIONS,
    takesId: false,
    takes: `it takes only ${listed(LIST_OPTIONS)} (it lists every key)`,
  },
  edit: {
    usage:
      "skillport keys edit KEY_ID [--name NAME] [--plan free|pro|enterprise] [--limit-minute N --limit-day N] [--json]",
    options: [...EDIT_CHANGES, "json"],
    takesId: true,
    takes: `it changes only ${listed(EDIT_CHANGES)}`,
  },
  revoke: {
    usage: "skillport keys revoke KEY_ID",
    options: [],
    takesId: true,
    takes: "it takes only a KEY_ID (and --data-dir)",
  },
  roll: {
    usage: "skillport keys roll KEY_ID [--grace 24h] [--json]",
    options: ROLL_OPTIONS,
    takesId: true,
    takes: `it takes only ${listed(ROLL_OPTIONS)}`,
  },
};

/** What `keys edit` cannot change: said so, with what to do instead. */
const FIXED_AT_CREATION: readonly KeysOption[] = optionsOf(FIXED_KEY_FIELDS);
const EVERY_ACTION: readonly KeysOption[] = ["data-dir", "help"];

function parseAll(args: string[]) {
  return parseArgs(parsing(args));
}

function parsing(args: string[]) {
  return { args, options: ALL_OPTIONS, allowPositionals: true, tokens: true } as const;
}

export type KeysArgs =
  | { ok: true; action: KeysAction; id: string | undefined; values: ReturnType<typeof parseAll>["values"] }
  | { ok: false; message: string };

/**
 * Parses `skillport keys ACTION ...`. A missing value throws Node's ERR_PARSE_ARGS error
 * (the CLI prints it with the usage); an unknown option, an option of another action or a
 * stray argument is a refusal naming it and the action, with the option probably meant.
 */
export function parseKeysArgs(args: string[]): KeysArgs {
  const [action, ...rest] = args;
  if (!isKeysAction(action)) {
    return {
      ok: false,
      message: "Usage: skillport keys create|list|edit|revoke|roll (see skillport --help)",
    };
  }
  const spec = KEYS_ACTIONS[action];
  const refuse = (problem: string) => ({ ok: false as const, message: `${problem}\nUsage: ${spec.usage}` });
  let parsed: ReturnType<typeof parseAll>;
  try {
    parsed = parseAll(rest);
  } catch (err) {
    const unknown = unknownOptionOf(err, parsing(rest));
    if (unknown === undefined) throw err;
    const guess = meantOption(unknown, [...spec.options, ...EVERY_ACTION]);
    return refuse(`keys ${action} does not take ${unknown}${guess ?? `: ${spec.takes}.`}`);
  }
  const { values, positionals, tokens } = parsed;
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    const option = token.name as KeysOption;
    if (spec.options.includes(option) || EVERY_ACTION.includes(option)) continue;
    const fixed =
      action === "edit" && FIXED_AT_CREATION.includes(option)
        ? `. A key's ${keyFieldsInWords(FIXED_KEY_FIELDS)} cannot be edited: create a new key with the ones you want (skillport keys create), move its clients to it, then revoke this one`
        : "";
    return refuse(`keys ${action} does not take --${option}: ${spec.takes}${fixed}.`);
  }
  const [id, ...extra] = positionals;
  const stray = spec.takesId ? extra : positionals;
  const first = stray[0];
  if (first !== undefined) {
    const what = spec.takesId ? "one KEY_ID" : "no KEY_ID or other argument";
    // A stray argument may be a pasted secret: named, but never echoed.
    const shown = looksLikeSecret(first) ? "what looks like a key's secret" : JSON.stringify(first);
    return refuse(`keys ${action} takes ${what}; unexpected: ${shown}.`);
  }
  return { ok: true, action, id: spec.takesId ? id : undefined, values };
}

function isKeysAction(action: string | undefined): action is KeysAction {
  return action !== undefined && Object.hasOwn(KEYS_ACTIONS, action);
}
