import { hash } from "node:crypto";
import { crc32 } from "node:zlib";
import { randomBase62, toBase62 } from "../ids.js";
import type { Environment } from "./api-key.js";

/**
 * API key secrets (contract.md, "API keys"): `sk_<env>_<random><checksum>`.
 * - 30 base62 characters of randomness: log2(62^30) ≈ 178 bits (the contract asks ≥ 160);
 * - 6 base62 characters of CRC-32 over everything before them, so a mistyped or
 *   truncated key is refused without a store lookup, and secret scanners can verify a
 *   match before reporting it (the scheme GitHub uses for its tokens).
 */
const ENV_TAGS: Record<Environment, string> = { production: "live", staging: "test", development: "dev" };
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
const SECRET_SHAPE = /^sk_(live|test|dev)_[0-9A-Za-z]{36}$/;
/**
 * Where a secret, or a part of one, begins: its tag and a first random character. Looser
 * than SECRET_SHAPE on purpose: a truncated, mistyped or quoted secret is still one that
 * must not reach a log or a message.
 */
const SECRET_START = "sk_(?:live|test|dev)_[0-9a-z]";
/** A secret's start, or an `Authorization` value. */
const SECRET_TRACE = new RegExp(`${SECRET_START}|^\\s*bearer\\s`, "i");
/**
 * Every secret-like run of characters in a text, to the end of its word, percent escapes
 * included (a key pasted after a typed prefix, `sk_live_sk_live_…`, is one run, and so is
 * one with an encoded character, `sk_live_aj%47…`).
 */
const SECRET_RUNS = new RegExp(`${SECRET_START}[\\w%]*`, "gi");
/** A run of URL characters: when it holds a `%`, a secret may hide in it (`%73k_live_…`). */
const URL_WORDS = /[\w%-]+/g;
/** How many times a word is decoded, for a secret encoded more than once (`%2573k_live_…`). */
const MAX_DECODINGS = 3;

export function generateSecret(environment: Environment): string {
  const body = `sk_${ENV_TAGS[environment]}_${randomBase62(RANDOM_LENGTH)}`;
  return body + checksum(body);
}

/** True when the secret has the right shape and its checksum matches. Constant work per length. */
export function isWellFormedSecret(secret: string): boolean {
  if (!SECRET_SHAPE.test(secret)) return false;
  const body = secret.slice(0, -CHECKSUM_LENGTH);
  return checksum(body) === secret.slice(-CHECKSUM_LENGTH);
}

/**
 * What is wrong with the shape of a secret `isWellFormedSecret` refuses, for its caller to
 * fix: the tag, the length, a character, or the checksum. Each is known from the text alone
 * (the checksum is public CRC-32), so it tells a guesser nothing, and it never repeats
 * any of the secret. Whether a well-formed key is unknown, revoked or expired is not told.
 */
export function malformedSecretReason(secret: string): string {
  const tag = /^sk_(live|test|dev)_/.exec(secret)?.[0];
  if (tag === undefined) return "it does not start with sk_live_, sk_test_ or sk_dev_";
  const rest = secret.length - tag.length;
  const expected = RANDOM_LENGTH + CHECKSUM_LENGTH;
  if (rest !== expected) {
    return `after ${tag} a key has ${expected} letters and digits, this one ${rest} characters: check that it was copied whole`;
  }
  if (!SECRET_SHAPE.test(secret)) {
    return `after ${tag} a key has only letters and digits: check that it was copied without quotes or spaces`;
  }
  return `its last ${CHECKSUM_LENGTH} characters (a checksum) do not match the rest: a character was mistyped or changed`;
}

/**
 * True when `text` holds what may be a secret, whole or in part (`Bearer sk_live_…`, a
 * truncated key), so that messages about it can avoid echoing it.
 */
export function looksLikeSecret(text: string): boolean {
  return SECRET_TRACE.test(text) || (text.includes("%") && SECRET_TRACE.test(percentDecoded(text)));
}

/**
 * The secret a pasted `text` holds: the whole text, the text without its environment tag
 * (`sk_live_`, which is public), or a secret inside it, as one is copied from a command, a
 * JSON value or an environment file (`Bearer sk_live_…`, `"sk_live_…"`,
 * `SKILLPORT_API_KEY=sk_live_…`). The checksum tells a secret from other text. Undefined
 * when it holds none.
 */
export function secretIn(text: string): string | undefined {
  if (isWellFormedSecret(text)) return text;
  const untagged = Object.values(ENV_TAGS)
    .map((tag) => `sk_${tag}_${text}`)
    .find(isWellFormedSecret);
  return untagged ?? text.match(SECRET_RUNS)?.find(isWellFormedSecret);
}

/** True when `text` holds a secret-like run of characters (what `redactSecrets` replaces). */
export function holdsSecretRun(text: string): boolean {
  return redactSecrets(text) !== text;
}

/**
 * `text` with anything shaped like a secret, whole or in part, percent-encoded or not,
 * replaced by `sk_[redacted]`.
 */
export function redactSecrets(text: string): string {
  const redacted = text.replace(SECRET_RUNS, "sk_[redacted]");
  if (!redacted.includes("%")) return redacted;
  return redacted.replace(URL_WORDS, (word) =>
    word.includes("%") && SECRET_TRACE.test(percentDecoded(word)) ? "sk_[redacted]" : word,
  );
}

/**
 * A whole secret as an agent passes one on, at its word's start (`_` may precede it, as in
 * a key pasted after a typed tag): any of them that passes the checksum is a working key.
 */
const WHOLE_SECRETS = /(?<![0-9A-Za-z])sk_(?:live|test|dev)_[0-9A-Za-z]{36}(?![0-9A-Za-z])/g;

/**
 * `text` with every working secret (its shape and checksum) replaced by `sk_[redacted]`,
 * and nothing else changed: for data kept and answered (execution records), where
 * `redactSecrets`' looser rule, right for logs, would rewrite ordinary words
 * (`risk_test_score`) and Stripe's `sk_test_…` keys alike.
 */
export function maskWorkingSecrets(text: string): string {
  if (!text.includes("sk_")) return text;
  return text.replace(WHOLE_SECRETS, (found) => (isWellFormedSecret(found) ? "sk_[redacted]" : found));
}

/**
 * JSON data with `maskWorkingSecrets` applied to each of its strings (member names are
 * left as they are: renaming them could merge two members); `value` itself when none
 * holds a working secret. Data without `sk_` in its strings (most) costs one walk of it.
 */
export function maskWorkingSecretsIn<T>(value: T): T {
  if (!holdsTextWith(value, "sk_")) return value;
  let masked = false;
  const text = JSON.stringify(value, (_name, member: unknown) => {
    if (typeof member !== "string") return member;
    const shown = maskWorkingSecrets(member);
    if (shown !== member) masked = true;
    return shown;
  });
  return masked ? (JSON.parse(text) as T) : value;
}

/**
 * Whether a string in JSON data holds `part` (a walk, several times cheaper than
 * stringifying a small record). Data nested deeper than any store keeps is answered true,
 * so that the caller looks at it the thorough way.
 */
function holdsTextWith(value: unknown, part: string, depth = 0): boolean {
  if (typeof value === "string") return value.includes(part);
  if (value === null || typeof value !== "object") return false;
  if (depth > MAX_WALK_DEPTH) return true;
  if (Array.isArray(value)) return value.some((item) => holdsTextWith(item, part, depth + 1));
  for (const name in value) {
    if (holdsTextWith((value as Record<string, unknown>)[name], part, depth + 1)) return true;
  }
  return false;
}

const MAX_WALK_DEPTH = 256;

/**
 * Each `%XX` as the character it encodes, again while that changes the text (up to
 * MAX_DECODINGS times); never throws, unlike `decodeURIComponent`.
 */
function percentDecoded(text: string): string {
  let decoded = text;
  for (let i = 0; i < MAX_DECODINGS && decoded.includes("%"); i++) {
    const next = decoded.replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
    if (next === decoded) break;
    decoded = next;
  }
  return decoded;
}

/** What is stored instead of the secret (hashed on every request: the one-shot `hash`). */
export function hashSecret(secret: string): string {
  return hash("sha256", secret, "hex");
}

/** The part of a secret shown in listings: its environment tag and 4 random characters. */
export function secretPrefix(secret: string): string {
  const envEnd = secret.indexOf("_", 3) + 1;
  return secret.slice(0, envEnd + 4);
}

export function secretLast4(secret: string): string {
  return secret.slice(-4);
}

function checksum(body: string): string {
  return toBase62(crc32(body), CHECKSUM_LENGTH);
}
