import { z } from "zod";
import type { Clock } from "../clock.js";
import { isoTimestamp } from "../clock.js";
import { ServiceError } from "../errors.js";
import { newId } from "../ids.js";
import { PLAN_LIMITS } from "../limits/plans.js";
import type { KeyStore } from "../ports.js";
import type { UsageRecorder } from "../usage/usage-recorder.js";
import { parseOrThrow } from "../validation.js";
import { wholeNumberField } from "../whole-number.js";
import { type ApiKey, ENVIRONMENTS, type KeyStatus, keyStatus, PLANS, SCOPES } from "./api-key.js";
import {
  EDITABLE_KEY_FIELDS,
  type EditableKeyField,
  FIXED_KEY_FIELDS,
  inWords,
  type KeyAttribute,
  keyFieldsInWords,
} from "./key-fields.js";
import { assertNotASecret, unknownKeyIdError } from "./key-id.js";
import type { KeyCounts, KeySearchFilter } from "./key-listing.js";
import { type KeyListing, type KeyPageOptions, pageOfKeys } from "./key-page.js";
import {
  generateSecret,
  hashSecret,
  isWellFormedSecret,
  malformedSecretReason,
  secretLast4,
  secretPrefix,
} from "./secret.js";

/** The refusal of a well-formed secret that is no working key (see `authenticate`). */
const NOT_A_WORKING_KEY = "The API key is unknown, revoked or expired.";

/** A limit: a number, or the decimal digits a form field or a command-line option holds. */
const positiveInt = wholeNumberField(1, 1_000_000_000);

const KeyLimits = z.object({ perMinute: positiveInt, perDay: positiveInt });

/**
 * What to tell whoever sets a key's limits when the minute's exceeds the day's: the key
 * gets the day's number a day while its administrator may believe it has the minute's a
 * minute, and swapping the two fields or options is an easy slip. Not
 * refused: the spec leaves an enterprise key's two numbers to its administrator, and a day
 * smaller than a minute is a way to make the day the window that binds.
 */
export function limitsNote(limits: { perMinute: number; perDay: number }): string | undefined {
  if (limits.perMinute <= limits.perDay) return undefined;
  const count = (n: number) => n.toLocaleString("en-US");
  return (
    `Its minute limit (${count(limits.perMinute)}) is above its day limit (${count(limits.perDay)}): ` +
    `the key gets at most ${count(limits.perDay)} requests a day. If the two are swapped, edit the key.`
  );
}

/**
 * A date as a key's expiry: the key works through that whole day, UTC, and stops at its
 * last millisecond. "Expires on 2027-01-01" (the dashboard) and `--expires-at 2027-01-01`
 * (the CLI) are read here alone: each surface passes the date as given, since the two
 * once ended the same date almost 24 hours apart.
 */
function endOfUtcDay(date: string): string {
  return `${date}T23:59:59.999Z`;
}

/**
 * When a key stops working: an ISO 8601 date-time with `Z` or an offset (seconds
 * optional), that instant; or a date, the end of that day, UTC (`endOfUtcDay`). A time
 * without a zone is refused: whose local time it is would be a guess.
 */
const ExpiresAt = z.union(
  [
    z.iso.datetime({ offset: true }),
    z.iso.datetime({ offset: true, precision: -1 }),
    z.iso.date().transform(endOfUtcDay),
  ],
  {
    error:
      "must be a date (2027-01-01: the key works through that day, UTC) or an ISO 8601 date-time with Z or an offset (2027-01-01T12:00:00Z)",
  },
);

/**
 * What a key's name may not hold: it is shown in listings, and the CLI prints it to a
 * terminal, where a control character obeys (an escape sequence clears the screen, a
 * newline forges a row), and so do the invisible marks that reorder text and the line
 * and paragraph separators.
 */
const UNPRINTABLE = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/u;

/** A letter, digit, punctuation mark or symbol: what makes a name something to see and click. */
const VISIBLE = /[\p{L}\p{N}\p{P}\p{S}]/u;
const NAME_LENGTH = "must be 1 to 100 characters long";

const KeyName = z
  .string()
  .trim()
  // A missing or over-long name is told once: the checks below add nothing about it (a
  // `keys create` without --name printed two errors for it).
  .min(1, { message: NAME_LENGTH, abort: true })
  .max(100, { message: NAME_LENGTH, abort: true })
  .refine((name) => !UNPRINTABLE.test(name), {
    message: "must be printable text: no control characters or direction marks",
  })
  // Zero-width and other format characters alone would make a name nobody can see.
  .refine((name) => VISIBLE.test(name), {
    message: "must hold at least one visible character: a letter, digit, punctuation mark or symbol",
  });

/**
 * A name as a terminal may print it, each unprintable character escaped (`\u001b`): names
 * stored before they were refused still reach `keys list`.
 */
export function printableName(name: string): string {
  return name.replace(
    new RegExp(UNPRINTABLE.source, "gu"),
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** An owner (a tenant label): what keys are created with, and what the CLI's `--owner` takes anywhere. */
export const KeyOwner = z
  .string()
  .trim()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    "must be letters, digits, '.', '_' or '-', at most 64 characters",
  );

export const CreateKeyInput = z
  .object({
    name: KeyName,
    scope: z.enum(SCOPES),
    plan: z.enum(PLANS).optional(),
    limits: KeyLimits.optional(),
    environment: z.enum(ENVIRONMENTS).default("production"),
    owner: KeyOwner.default("default"),
    expiresAt: ExpiresAt.optional(),
  })
  // Limits of its own make a key enterprise when no plan is named; otherwise free.
  .transform((input) => ({ ...input, plan: input.plan ?? (input.limits ? "enterprise" : "free") }));
export type CreateKeyInput = z.input<typeof CreateKeyInput>;

/** An editable field as "give …" names it. */
const A_VALUE_OF: Record<EditableKeyField, string> = { name: "a name", plan: "a plan", limits: "limits" };

/**
 * What editing a key may change (`EDITABLE_KEY_FIELDS`). A plan is named, or implied by limits (enterprise) or
 * kept; an enterprise key keeps its limits unless new ones are given, and a key moving to
 * free or pro takes that plan's.
 */
export const EditKeyInput = z
  .object({
    name: KeyName.optional(),
    plan: z.enum(PLANS).optional(),
    limits: KeyLimits.optional(),
  })
  .refine((input) => Object.values(input).some((value) => value !== undefined), {
    message: `nothing to change: give ${inWords(
      EDITABLE_KEY_FIELDS.map((field) => A_VALUE_OF[field]),
      "or",
    )} (a key's ${keyFieldsInWords(FIXED_KEY_FIELDS)} cannot be edited: create a new key)`,
  });
export type EditKeyInput = z.input<typeof EditKeyInput>;

/** The longest grace period of a roll: 30 days. */
const MAX_ROLL_GRACE_SECONDS = 30 * 86_400;

export const RollKeyInput = z.object({
  /** How long the old key keeps working after the roll; 0 ends it at once. */
  graceSeconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_ROLL_GRACE_SECONDS, "must be at most 30 days (2592000 seconds)"),
});
export type RollKeyInput = z.input<typeof RollKeyInput>;

/** What a new key takes from its creator: everything but the secret and the timestamps. */
type KeyAttributes = Pick<ApiKey, KeyAttribute>;

/** Every key, newest first: the order of `list`. */
const NEWEST_FIRST = { search: { kind: "all" }, order: "created", descending: true } as const;
/** The keys `list` reads from the store at a time. */
const LIST_PAGE_SIZE = 500;

/** A key as listings show it: no hash, the secret reduced to a prefix and its last four characters. */
export type KeyView = Omit<ApiKey, "hash">;

/**
 * Whether a roll's grace ends before the key would stop anyway. A key already due to stop
 * within the grace (rolled before, most likely) would hand its new key that near end, and
 * the grace would extend its own life: neither is a roll.
 */
function graceEndsBeforeKey(key: Pick<ApiKey, "expiresAt">, graceSeconds: number, now: number): boolean {
  return key.expiresAt === null || Date.parse(key.expiresAt) > now + graceSeconds * 1000;
}

function toKeyView({ hash: _hash, ...view }: ApiKey): KeyView {
  return view;
}

/**
 * A new key's input as `KeyService.create` takes it, checked as it checks it at `now`
 * (`invalid_request` naming each bad field), without making it: for a caller that must
 * refuse bad input before anything else (the CLI, before it opens or creates a store).
 */
export function checkNewKey(input: CreateKeyInput, now: number): z.output<typeof CreateKeyInput> {
  const parsed = parseOrThrow(CreateKeyInput, input);
  if (parsed.expiresAt && Date.parse(parsed.expiresAt) <= now) {
    throw new ServiceError("invalid_request", {
      message: "expiresAt: must be in the future",
      details: [{ path: "expiresAt", message: "must be in the future" }],
    });
  }
  return parsed;
}

/**
 * An edit's changes as `KeyService.edit` takes them, checked as it checks them
 * (`invalid_request` naming each bad field, or that there is nothing to change), without
 * reading the key: for a caller that must refuse bad input before anything else (the CLI,
 * before it opens a store).
 */
export function checkKeyEdit(input: EditKeyInput): z.output<typeof EditKeyInput> {
  return parseOrThrow(EditKeyInput, input);
}

/**
 * Creating, listing, revoking, rolling and checking API keys: the operations the dashboard
 * and the CLI share.
 */
export class KeyService {
  constructor(
    private readonly keys: KeyStore,
    private readonly clock: Clock,
    /**
     * Where requests refused for a dead key are counted, beside the admitted and limited
     * ones (the usage charts). The CLI, which authenticates no request, passes none.
     */
    private readonly usage?: Pick<UsageRecorder, "record">,
  ) {}

  /** Creates a key; the returned secret exists nowhere else and is shown once. */
  async create(input: CreateKeyInput): Promise<{ key: KeyView; secret: string }> {
    const now = this.clock.now();
    const parsed = checkNewKey(input, now);
    return this.insertNew(
      {
        name: parsed.name,
        scope: parsed.scope,
        plan: parsed.plan,
        limits: limitsOf(parsed.plan, parsed.limits),
        environment: parsed.environment,
        owner: parsed.owner,
        expiresAt: parsed.expiresAt ? isoTimestamp(Date.parse(parsed.expiresAt)) : null,
      },
      now,
    );
  }

  /**
   * Replaces a key with a new one of the same name, scope, plan, limits, environment, owner
   * and expiry, and makes the old one expire after `graceSeconds`, so that clients can move
   * to the new secret without an outage. Only an active key can be rolled.
   */
  async roll(id: string, input: RollKeyInput): Promise<{ key: KeyView; secret: string; previous: KeyView }> {
    const { graceSeconds } = parseOrThrow(RollKeyInput, input);
    const old = await this.findOrThrow(id);
    const now = this.clock.now();
    const status = keyStatus(old, now);
    if (status !== "active") {
      throw new ServiceError("invalid_request", {
        message: `The key ${id} is ${status}; only an active key can be rolled.`,
      });
    }
    const earlier = await this.keys.findReplacement(id);
    if (earlier) throw rolledBefore(old, earlier);
    const graceEnd = now + graceSeconds * 1000;
    if (!graceEndsBeforeKey(old, graceSeconds, now)) {
      throw new ServiceError("invalid_request", {
        message: `The key ${id} already stops working at ${old.expiresAt}, within the grace period: give a shorter grace.`,
      });
    }
    const { key, secret } = newKey(old, now, id);
    if (!(await this.keys.roll(key, isoTimestamp(graceEnd)))) {
      // Another roll of the same key got there first.
      const winner = await this.keys.findReplacement(id);
      throw winner ? rolledBefore(old, winner) : unknownKeyIdError(id);
    }
    return { key: toKeyView(key), secret, previous: toKeyView((await this.keys.findById(id)) ?? old) };
  }

  /** The key that replaced the key `id` in a roll, if it was rolled. */
  async replacementOf(id: string): Promise<KeyView | undefined> {
    assertNotASecret(id);
    const key = await this.keys.findReplacement(id);
    return key && toKeyView(key);
  }

  /**
   * Changes an active key's name, plan or limits (contract.md: an enterprise key's limits
   * are set when it is created or edited). Its secret stays the same, and every process
   * sharing the store applies the change from its next request.
   */
  async edit(id: string, input: EditKeyInput): Promise<KeyView> {
    const changes = checkKeyEdit(input);
    const key = await this.findOrThrow(id);
    const status = this.statusOf(key);
    if (status !== "active") {
      throw new ServiceError("invalid_request", {
        message: `The key ${id} is ${status}; only an active key can be edited.`,
      });
    }
    const plan = changes.plan ?? (changes.limits ? "enterprise" : key.plan);
    // An enterprise key keeps its own numbers unless given new ones; other plans have theirs.
    const kept = plan === "enterprise" && key.plan === "enterprise" ? key.limits : undefined;
    const limits = limitsOf(plan, changes.limits ?? kept);
    await this.keys.update(id, { name: changes.name ?? key.name, plan, limits });
    return toKeyView((await this.keys.findById(id)) ?? key);
  }

  /** Whether rolling `key` now may give its old secret `graceSeconds` more (see `graceEndsBeforeKey`). */
  graceFits(key: Pick<ApiKey, "expiresAt">, graceSeconds: number): boolean {
    return graceEndsBeforeKey(key, graceSeconds, this.clock.now());
  }

  /**
   * Whether a key works now (active, revoked or expired), by the rule and the clock
   * authentication uses: the one answer for every surface that shows a key's status.
   */
  statusOf(key: Pick<ApiKey, "revokedAt" | "expiresAt">): KeyStatus {
    return keyStatus(key, this.clock.now());
  }

  /** One key, without its hash. */
  async get(id: string): Promise<KeyView> {
    return toKeyView(await this.findOrThrow(id));
  }

  /** The keys of `ids` that exist, by id, in one read of only those keys (for the few a page names). */
  async byIds(ids: Iterable<string>): Promise<Map<string, KeyView>> {
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) return new Map();
    const found = await this.keys.findByIds(wanted);
    return new Map(found.map((key) => [key.id, toKeyView(key)]));
  }

  /**
   * One page of a key listing (`pageOfKeys`), its status judged at the clock's now; a
   * cursor of another listing (order, tab or search), or holding no place in this one, is
   * refused, and one whose key is gone since pages on from the place it held.
   */
  async page(
    listing: Omit<KeyListing, "now">,
    limit: number,
    cursor?: string,
    options?: KeyPageOptions,
  ): Promise<{ keys: KeyView[]; previous: string | null; next: string | null }> {
    const now = isoTimestamp(this.clock.now());
    const page = await pageOfKeys(this.keys, { ...listing, now }, limit, cursor, options);
    return { ...page, keys: page.keys.map(toKeyView) };
  }

  /** How many keys a search finds of each status, now. */
  async counts(search: KeySearchFilter): Promise<KeyCounts> {
    return this.keys.countByStatus(search, isoTimestamp(this.clock.now()));
  }

  /**
   * Every key, newest first, read from the store a page at a time (a listing that must
   * not stop short, as `keys list` must not).
   */
  async list(): Promise<KeyView[]> {
    const all: KeyView[] = [];
    let cursor: string | undefined;
    do {
      // Forward only: no read to learn whether a page lies before.
      const page = await this.page(NEWEST_FIRST, LIST_PAGE_SIZE, cursor, { previous: false });
      all.push(...page.keys);
      cursor = page.next ?? undefined;
    } while (cursor !== undefined);
    return all;
  }

  /**
   * Revokes a key; it is refused from the next request on, by every process sharing the
   * store. A key revoked before keeps the time it was first revoked (`alreadyRevoked`).
   */
  async revoke(id: string): Promise<{ key: KeyView; alreadyRevoked: boolean }> {
    const key = await this.findOrThrow(id);
    await this.keys.revoke(id, isoTimestamp(this.clock.now()));
    return { key: toKeyView((await this.keys.findById(id)) ?? key), alreadyRevoked: key.revokedAt !== null };
  }

  /**
   * The key a secret belongs to, whatever its status, for an administrator asking which key
   * a secret is; undefined for a malformed or unknown secret. Not a use of the key.
   */
  async findBySecret(secret: string): Promise<KeyView | undefined> {
    if (!isWellFormedSecret(secret)) return undefined;
    const key = await this.keys.findByHash(hashSecret(secret));
    return key && toKeyView(key);
  }

  /**
   * The key a bearer secret belongs to, or an `invalid_api_key` error. A malformed or
   * mistyped secret is refused by its checksum, without a store lookup. A secret of a key
   * that no longer works (revoked or expired) is refused too, and recorded against that
   * key, so that its pages show who still calls with it; an unknown secret (a guess)
   * records nothing anywhere. Both records are coalesced: neither costs this request a write.
   */
  async authenticate(secret: string): Promise<ApiKey> {
    if (!isWellFormedSecret(secret)) {
      throw new ServiceError("invalid_api_key", {
        message: `The API key is malformed: ${malformedSecretReason(secret)}.`,
      });
    }
    const key = await this.keys.findByHash(hashSecret(secret));
    // Unknown, revoked and expired are told alike: which one it is would tell a holder of
    // a leaked or guessed secret whether it ever was a key.
    if (!key) throw new ServiceError("invalid_api_key", { message: NOT_A_WORKING_KEY });
    const now = this.clock.now();
    if (keyStatus(key, now) !== "active") {
      this.keys.markRefusedUse(key.id, isoTimestamp(now));
      this.usage?.record(key.id, "refused", now);
      throw new ServiceError("invalid_api_key", { message: NOT_A_WORKING_KEY });
    }
    this.keys.markUsed(key.id, isoTimestamp(now));
    return key;
  }

  /**
   * Whether a key admitted earlier still works, for what was opened with it and stays open
   * (an MCP session's event stream). It is looked up by hash as every request's key is, so
   * on SQLite it costs the change signal's read and a cache hit until a key changes. Not a
   * use of the key, nor a refused one.
   */
  async stillWorks(key: Pick<ApiKey, "hash">): Promise<boolean> {
    const current = await this.keys.findByHash(key.hash);
    return current !== undefined && keyStatus(current, this.clock.now()) === "active";
  }

  /** The key with this id; every operation by id comes here, so none echoes a pasted secret. */
  private async findOrThrow(id: string): Promise<ApiKey> {
    assertNotASecret(id);
    const key = await this.keys.findById(id);
    if (!key) throw unknownKeyIdError(id);
    return key;
  }

  /** Makes a secret for `attributes`, stores the key (its hash only) and returns both. */
  private async insertNew(attributes: KeyAttributes, now: number): Promise<{ key: KeyView; secret: string }> {
    const { key, secret } = newKey(attributes, now, null);
    await this.keys.insert(key);
    return { key: toKeyView(key), secret };
  }
}

/**
 * A rolled key is not rolled again: a second replacement would leave two keys in its place,
 * and its grace would be cut to the second roll's (a key rolled in a hurry, then again to end
 * the old secret sooner, is what revoking the old key does).
 */
function rolledBefore(old: ApiKey, replacement: ApiKey): ServiceError {
  const ends = old.expiresAt ? `; it stops working at ${old.expiresAt}` : "";
  return new ServiceError("invalid_request", {
    message: `The key ${old.id} was rolled before: ${replacement.id} replaced it${ends}. Roll ${replacement.id} instead, or revoke ${old.id} to end it now.`,
  });
}

/** A key with a new secret (only its hash kept) for `attributes`, and the secret. */
function newKey<R extends string | null>(
  attributes: KeyAttributes,
  now: number,
  replaces: R,
): { key: ApiKey & { replaces: R }; secret: string } {
  const secret = generateSecret(attributes.environment);
  return {
    secret,
    key: {
      id: newId("key", now),
      name: attributes.name,
      scope: attributes.scope,
      plan: attributes.plan,
      limits: attributes.limits,
      environment: attributes.environment,
      owner: attributes.owner,
      expiresAt: attributes.expiresAt,
      hash: hashSecret(secret),
      prefix: secretPrefix(secret),
      last4: secretLast4(secret),
      createdAt: isoTimestamp(now),
      lastUsedAt: null,
      lastRefusedAt: null,
      revokedAt: null,
      replaces,
    },
  };
}

/**
 * A plan's limits (contract.md: "an enterprise key carries its own two numbers"): the
 * given ones for enterprise, which needs them; free and pro have their own.
 */
function limitsOf(plan: ApiKey["plan"], limits: ApiKey["limits"] | undefined): ApiKey["limits"] {
  if (plan === "enterprise") {
    if (limits) return limits;
    throw new ServiceError("invalid_request", {
      message: "limits: an enterprise key needs per-minute and per-day limits",
      details: [{ path: "limits", message: "an enterprise key needs per-minute and per-day limits" }],
    });
  }
  if (
    limits &&
    (limits.perMinute !== PLAN_LIMITS[plan].perMinute || limits.perDay !== PLAN_LIMITS[plan].perDay)
  ) {
    throw new ServiceError("invalid_request", {
      message: `limits: the ${plan} plan has fixed limits`,
      details: [{ path: "limits", message: `the ${plan} plan has fixed limits` }],
    });
  }
  return PLAN_LIMITS[plan];
}
