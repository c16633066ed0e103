import { systemClock } from "../core/clock.js";
import { ServiceError } from "../core/errors.js";
import { inWords } from "../core/keys/key-fields.js";
import { type KeyJson, toKeyJson } from "../core/keys/key-json.js";
import {
  type CreateKeyInput,
  checkKeyEdit,
  checkNewKey,
  type EditKeyInput,
  KeyService,
  type KeyView,
  limitsNote,
  printableName,
} from "../core/keys/key-service.js";
import { silentLogger } from "../core/logger.js";
import { openStore } from "../store/open-store.js";
import { UsageError } from "./command-options.js";
import { KEYS_ACTIONS, OPTIONS_OF_KEY_FIELD, parseKeysArgs } from "./keys-args.js";
import { commandStore } from "./store-command.js";

/**
 * `skillport keys create|list|edit|revoke|roll`: the dashboard's key operations for scripts
 * and headless set-ups. Works on the same store a running server uses; the server sees a
 * new, edited or revoked key on its next request.
 */
export async function runKeysCommand(args: string[]): Promise<number> {
  // A command line it cannot run throws a UsageError, before any store is opened.
  const parsed = parseKeysArgs(args);
  const { action, id, values } = parsed;
  const command = `skillport keys ${action}`;
  // A new key's values and an edit's changes are checked before a store is opened: refused,
  // none is created, and what is said is the command line's problem, not a missing store.
  let input: CreateKeyInput | undefined;
  let changes: EditKeyInput | undefined;
  try {
    input = action === "create" ? newKeyInput(values) : undefined;
    changes = action === "edit" ? editChanges(values) : undefined;
  } catch (err) {
    return refused(command, err);
  }
  // `create` makes the store of the first key; the others refuse a directory without one.
  const opened = commandStore(KEYS_ACTIONS[action].spec, values, { mayCreate: action === "create" });
  if (!opened) return 1;
  // Said on every change and listing (the JSON answers hold keys only, not where they live).
  const where = opened.name;
  const store = await openStore(opened.config, silentLogger, { limits: false });
  opened.sayIfCreated();
  const keys = new KeyService(store.keys, systemClock);
  const json = (key: KeyView) => toKeyJson(key, keys.statusOf(key));
  try {
    switch (action) {
      case "create": {
        // `input` is set for every create (above); built again only to satisfy the types.
        const { key, secret } = await keys.create(input ?? newKeyInput(values));
        warnOfLimits(key);
        if (values.json) {
          console.log(JSON.stringify({ ...json(key), secret }));
        } else {
          console.log(
            `Created ${key.scope} key ${key.id} "${printableName(key.name)}" (plan ${key.plan}, owner ${key.owner}) in ${where}.`,
          );
          console.log(`\n  ${secret}\n`);
          console.log(
            "Copy it now: this is the only time it is shown. Pass it as 'Authorization: Bearer <key>'.",
          );
        }
        return 0;
      }
      case "list": {
        const all = await keys.list();
        if (values.json) console.log(JSON.stringify(all.map(json)));
        else printTable(all.map(json), where);
        return 0;
      }
      case "revoke": {
        const { key, alreadyRevoked } = await keys.revoke(id);
        const named = `${key.id} "${printableName(key.name)}" in ${where}`;
        // Again is no failure (a script may revoke twice), but the time is the first one's.
        if (alreadyRevoked)
          console.log(`Key ${named} was already revoked, at ${key.revokedAt}: nothing changed.`);
        else console.log(`Revoked key ${named}.`);
        return 0;
      }
      case "edit": {
        // `changes` is set for every edit (above); built again only to satisfy the types.
        const key = await keys.edit(id, changes ?? editChanges(values));
        warnOfLimits(key);
        if (values.json) console.log(JSON.stringify(json(key)));
        else
          console.log(
            `Edited key ${key.id} "${printableName(key.name)}" in ${where}: ${key.plan}, ${key.limits.perMinute} a minute, ${key.limits.perDay} a day.`,
          );
        return 0;
      }
      case "roll": {
        const { key, secret, previous } = await keys.roll(id, { graceSeconds: parsed.graceSeconds });
        if (values.json) {
          console.log(JSON.stringify({ ...json(key), secret, previous: json(previous) }));
        } else {
          console.log(
            `Rolled key ${previous.id} "${printableName(previous.name)}" in ${where}: it stops working at ${previous.expiresAt}.`,
          );
          console.log(`New key ${key.id}:\n\n  ${secret}\n`);
          console.log("Copy it now: this is the only time it is shown.");
        }
        return 0;
      }
    }
  } catch (err) {
    return refused(command, err);
  } finally {
    await store.close();
  }
}

/**
 * `keys create`'s input from its options, checked as the core checks a new key
 * (`checkNewKey`). Raw strings: the core validates them and names every bad option.
 * `satisfies` makes tsc name a field of CreateKeyInput this leaves out (a cast would not).
 */
function newKeyInput(values: ReturnType<typeof parseKeysArgs>["values"]): CreateKeyInput {
  const input = {
    name: values.name,
    scope: values.scope,
    plan: values.plan,
    limits: limitsOption(values["limit-minute"], values["limit-day"]),
    environment: values.env,
    owner: values.owner,
    expiresAt: values["expires-at"],
  } satisfies Record<keyof CreateKeyInput, unknown>;
  checkNewKey(input as CreateKeyInput, systemClock.now());
  return input as CreateKeyInput;
}

/**
 * `keys edit`'s changes from its options, checked as the core checks them (`checkKeyEdit`).
 * `satisfies` makes tsc name an editable field this leaves out.
 */
function editChanges(values: ReturnType<typeof parseKeysArgs>["values"]): EditKeyInput {
  const changes = {
    name: values.name,
    plan: values.plan,
    limits: limitsOption(values["limit-minute"], values["limit-day"]),
  } satisfies Record<keyof EditKeyInput, unknown>;
  checkKeyEdit(changes as EditKeyInput);
  return changes as EditKeyInput;
}

/**
 * The core's refusal of a keys action, in the CLI's terms (exit 2). A value the command line
 * gave or left out (an `invalid_request` with `details`, each naming its option) is a usage
 * error, printed with the action's usage, which says what it takes. Any other refusal is
 * about the key, not the command line (an id no key has, a key revoked, expired or rolled
 * before), and is printed alone, with what to do where its message says it: the usage would
 * only bury it. Anything but a ServiceError is thrown.
 */
function refused(command: string, err: unknown): number {
  // The command line's own checks (`limitsOption`) are usage errors already: named by the command.
  if (err instanceof UsageError) throw new UsageError(`${command}: ${err.message}`);
  if (!(err instanceof ServiceError)) throw err;
  const refusal = `${command}: ${cliMessage(err)}`;
  if (err.code === "invalid_request" && err.details?.length) throw new UsageError(refusal);
  console.error(refusal);
  return 2;
}

/** The note on a key's limits, if any (`limitsNote`), on stderr so that `--json` output stays one JSON document. */
function warnOfLimits(key: KeyView): void {
  const note = limitsNote(key.limits);
  if (note) console.error(`Note: ${note}`);
}

/** `--limit-minute` and `--limit-day`, given together or not at all (the core judges their values). */
function limitsOption(minute: string | undefined, day: string | undefined) {
  if (minute === undefined && day === undefined) return undefined;
  if (minute === undefined || day === undefined) {
    throw new UsageError(
      "--limit-minute and --limit-day go together: give both (a key's limits per minute and per day).",
    );
  }
  return { perMinute: minute, perDay: day };
}

/** The option that sets each field the core validates, to name it in errors. */
const OPTION_OF_FIELD: Record<string, string> = {
  ...Object.fromEntries(
    Object.entries(OPTIONS_OF_KEY_FIELD).map(([field, options]) => [
      field,
      inWords(options.map((option) => `--${option}`)),
    ]),
  ),
  "limits.perMinute": "--limit-minute",
  "limits.perDay": "--limit-day",
  graceSeconds: "--grace",
};

/**
 * A refusal in the CLI's terms: one line per problem, naming the option to fix. A problem
 * of the input as a whole (path "(root)", such as an edit with nothing to change) names none.
 */
function cliMessage(err: ServiceError): string {
  if (!err.details?.length) return err.message;
  return err.details
    .map((d) => (d.path === "(root)" ? d.message : `${OPTION_OF_FIELD[d.path] ?? d.path}: ${d.message}`))
    .join("\n");
}

function printTable(keys: KeyJson[], where: string): void {
  if (keys.length === 0) {
    console.log(`No keys in ${where} yet. Create one: skillport keys create --name NAME --scope full-access`);
    return;
  }
  console.log(`Keys in ${where}:`);
  const rows = keys.map((j) => {
    return [
      j.id,
      printableName(j.name),
      `${j.prefix}…${j.last4}`,
      j.scope,
      j.plan,
      j.environment,
      j.owner,
      j.status,
      // A rolled key in its grace period is `active` like its replacement: its end tells them apart.
      j.expires_at ?? "never",
      j.last_used_at ?? "never",
      j.last_refused_at ?? "never",
    ];
  });
  const header = [
    "ID",
    "NAME",
    "KEY",
    "SCOPE",
    "PLAN",
    "ENV",
    "OWNER",
    "STATUS",
    "EXPIRES",
    "LAST USED",
    "LAST REFUSED",
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  for (const row of [header, ...rows])
    console.log(row.map((cell, i) => String(cell).padEnd(widths[i] ?? 0)).join("  "));
}
