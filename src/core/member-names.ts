import { distance } from "fastest-levenshtein";

/** More close names than this are no help to the caller choosing one. */
const MAX_GUESSES = 3;

/**
 * The names of `known` that `sent` may have meant (see `mayMean`), closest first, at most
 * three; only the one it respells, when it respells one (`toTimezone` is no `from_timezone`).
 */
export function meantNames(sent: string, known: Iterable<string>): string[] {
  const names = [...known];
  const respelt = names.filter((name) => name !== sent && plain(name) === plain(sent));
  if (respelt.length > 0) return respelt;
  return names
    .filter((name) => mayMean(sent, name))
    .sort((a, b) => distance(sent, a) - distance(sent, b) || (a < b ? -1 : 1))
    .slice(0, MAX_GUESSES);
}

/**
 * Whether a caller who sent the name `sent` plausibly meant `known`: the same letters but
 * for case, `_` and `-` (`toTimezone`), a few typos for its length (`expresion`, `nmae`), a run of
 * whole `_`-parts of it or the other way round (`to` for `to_timezone`, `execution_id` for
 * `id`), a shortening of at least three letters (`expr`, but not `timezone` for `time`), the
 * same name in another unit of time (`timeout_seconds`, `wait_time_ms` for `wait_ms`), or a
 * word agents use for it (`SYNONYMS`). Nothing else: a wrong guess misleads more than none.
 */
export function mayMean(sent: string, known: string): boolean {
  if (sent === known) return false;
  const [plainSent, plainKnown] = [plain(sent), plain(known)];
  if (plainSent === plainKnown) return true;
  if (SYNONYMS[known]?.includes(plainSent)) return true;
  // One typo in three letters is a typo; more is another word (`id` is not `ip`).
  if (3 * typos(plainSent, plainKnown) <= Math.max(plainSent.length, plainKnown.length)) return true;
  const shortened = plainKnown.startsWith(plainSent) || plainKnown.endsWith(plainSent);
  if (plainSent.length >= 3 && shortened) return true;
  const [partsSent, partsKnown] = [parts(sent), parts(known)];
  return (
    isSublist(partsSent, partsKnown) ||
    isSublist(partsKnown, partsSent) ||
    sameNameInOtherUnit(partsSent, partsKnown)
  );
}

/**
 * The words LLMs write for members of skillport's requests and tools that no letter rule
 * reaches (as `plain` spells them): an agent calling `execute_skill` with `arguments`, as a
 * tools/call does, or `discover_skills` with `top_k`, had the member dropped and the call run
 * without it.
 */
const SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  params: ["arguments", "args", "input", "inputs", "parameters"],
  limit: ["maxresults", "topk", "numresults", "maxitems", "pagesize"],
};

/** Units of time a member's name may end in (`wait_ms`, `timeout_seconds`), as `parts` spells them. */
const TIME_UNITS = new Set(["ms", "msec", "millis", "milliseconds", "s", "sec", "secs", "second", "seconds"]);

/**
 * Whether both names end in a unit of time and name the same thing before it, or one names
 * a run of the other's words (`timeout_seconds` and `timeout_ms`, `wait_time_ms` and `wait_ms`):
 * dropped, such a member ran the call with the default timeout in its place.
 */
function sameNameInOtherUnit(sent: string[], known: string[]): boolean {
  const unit = (words: string[]) => TIME_UNITS.has(words.at(-1) ?? "");
  if (!unit(sent) || !unit(known)) return false;
  const [stemSent, stemKnown] = [sent.slice(0, -1), known.slice(0, -1)];
  if (stemSent.length === 0 || stemKnown.length === 0) return false;
  const same =
    stemSent.length === stemKnown.length && stemSent.every((word, index) => word === stemKnown[index]);
  return same || isSublist(stemSent, stemKnown) || isSublist(stemKnown, stemSent);
}

/**
 * The edits from one name to the other, two neighbouring letters swapped counting as one:
 * Levenshtein counts `nmae` two edits from `name`, too many for four letters, yet it is
 * the commonest slip of all.
 */
function typos(sent: string, known: string): number {
  const edits = distance(sent, known);
  if (edits !== 2 || sent.length !== known.length) return edits;
  const at = [...sent].findIndex((letter, index) => letter !== known[index]);
  const swapped = sent[at] === known[at + 1] && sent[at + 1] === known[at];
  return swapped && sent.slice(at + 2) === known.slice(at + 2) ? 1 : edits;
}

function plain(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, "");
}

/** `to_timezone`, `toTimezone` and `to-timezone` are each the parts `to`, `timezone`. */
function parts(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[_-]+/)
    .filter((part) => part.length > 0);
}

/** Whether `inner` is a run of consecutive parts of `outer`, and fewer of them. */
function isSublist(inner: string[], outer: string[]): boolean {
  if (inner.length === 0 || inner.length >= outer.length) return false;
  for (let start = 0; start + inner.length <= outer.length; start++) {
    if (inner.every((part, index) => outer[start + index] === part)) return true;
  }
  return false;
}
