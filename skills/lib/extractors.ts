/**
 * Pattern extractors for `text.extract`. Each returns matches in order of appearance.
 * They are heuristics tuned to avoid the common false positives (a date read as a phone
 * number, an email's domain read as a mention), not validators.
 */

// Every quantifier is bounded (RFC 5321 limits: 64-character local part, 63-character
// labels): unbounded ones backtrack quadratically on long runs such as "aaaa...".
// The local part may hold any letter, digit or mark (RFC 6531 internationalised addresses,
// "jürgen@example.de") and RFC 5322's atext punctuation, and a match starts only where the
// run of such characters starts: a narrower local part once returned "rgen@example.de" for
// "jürgen@example.de" and "neil@example.ie" for "o'neil@example.ie", addresses that are not
// in the text. A run that starts with punctuation ("!ann@") gives nothing rather than its
// tail, except after an opening quote or brace ('ann@example.com', `ann@example.com`).
// Three atext characters end a run instead: "/", "=" and "|" join an address to a URL, a
// key or a field far more often than they sit inside one ("?to=ann@example.com",
// "email=ann@example.com", "1|ann@example.com|Ann"). The typographic apostrophe is taken
// like the straight one, as word processors write "o’neil@example.ie" (RFC 6531 allows it).
// The domain too ends only where the text's domain ends (not before a "-" or another
// label), and its top-level label may be an internationalised one ("xn--p1ai"): a
// top-level label cut short once returned "info@example.xn".
/** Local-part characters that, at the start of a run, open a quoted address instead. */
const LOCAL_OPENING = "'`{’";
/** The other local-part characters (a character class's contents): atext but / = |, and letters. */
const LOCAL_OTHER = "\\p{L}\\p{N}\\p{M}.!#$%&*+?^_}~\\-";
const EMAIL = new RegExp(
  `(?<![${LOCAL_OTHER}]|[${LOCAL_OTHER}${LOCAL_OPENING}][${LOCAL_OPENING}])[\\p{L}\\p{N}\\p{M}_][${LOCAL_OTHER}${LOCAL_OPENING}]{0,63}@` +
    "(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.){1,8}(?:[A-Za-z]{2,24}|xn--[A-Za-z0-9-]{1,59})" +
    "(?![\\p{L}\\p{N}\\p{M}-]|\\.[A-Za-z0-9])",
  "gu",
);
// CJK and fullwidth punctuation ends a URL, as a space does: "https://example.com。谢谢".
// So do typographic quotes (‘ ’ “ ” „ ‟ « » ‹ ›), as straight ones do: RFC 3986 has no
// place for them unencoded, and a URL in “…” kept its closing ” (“https://example.com/q”).
const URL_PATTERN =
  /\b(?:https?:\/\/|www\.)[^\s<>"'`\u2018-\u201f\u00ab\u00bb\u2039\u203a\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]+/gi;
// Marks (\p{M}) belong to a tag: Indic vowel signs and viramas ("#नमस्ते") and decomposed
// accents ("#cafe\u0301") are marks, and without them a tag ended at the first one. A mark
// right after the # has nothing to combine with, so it starts no tag.
const HASHTAG = /(?<![\p{L}\p{N}\p{M}_&#/])#(?!\p{M})([\p{L}\p{N}\p{M}_]*\p{L}[\p{L}\p{N}\p{M}_]*)/gu;
// Handles as Twitter, GitHub and most chats write them: letters, digits, _ and inner -.
const MENTION =
  /(?<![\p{L}\p{N}_.@/])@([A-Za-z0-9_](?:[A-Za-z0-9_-]{0,48}[A-Za-z0-9_])?)(?![\p{L}\p{N}_@]|\.\w)/gu;
// A sign is "-", "+" or U+2212 MINUS SIGN, which typeset text writes ("−5 °C" once gave 5).
// A comma between digits groups thousands only before exactly three digits (1,234,567);
// a number next to another comma is left to COMMA_RUN and DECIMAL_COMMA below.
const NUMBER =
  /(?<![\p{L}\p{N}_.,])[-+\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\p{L}\p{N}_]|[.,]\d)/gu;
// Numbers joined by commas alone: a list ("10,20,30") or a pair in brackets ("(3,4)"); two
// alone ("12,5", "3,14159", "1,5") may be a decimal comma, and are left out rather than
// misread: "1,5" is 1.5 in much of Europe and the list 1 and 5 in English.
const COMMA_RUN =
  /(?<![\p{L}\p{N}_.,])[-+\u2212]?\d+(?:\.\d+)?(?:,[-+\u2212]?\d+(?:\.\d+)?)+(?![\p{L}\p{N}_]|[.,]\d)/gu;
// A decimal comma after dotted thousands, as much of Europe writes amounts ("1.234,56").
const DECIMAL_COMMA = /(?<![\p{L}\p{N}_.,])[-+\u2212]?\d{1,3}(?:\.\d{3})+,\d+(?![\p{L}\p{N}_]|[.,]\d)/gu;
const THOUSANDS = /^[-+\u2212]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;
// Thousands grouped by a no-break, thin or narrow no-break space (U+00A0, U+2009, U+202F),
// as typography (SI, ISO 80000) and French, Swedish or Russian formats write them
// ("1\u202f000\u202f000", "1\u202f234,56"): those spaces do not separate the items of a
// list, so the digits are one number, and a comma or dot after them is its decimal
// separator. An ordinary space is left alone: "5 100 200" may be a list of three as well as
// five million, so "1 000 000" stays three numbers too. A match starts only at the first
// group (not after a digit and such a space) and has at most seven, so a long run of groups
// is tried once, not from each group.
const SPACE_GROUPED =
  /(?<![\p{L}\p{N}_.,]|\d[\u00a0\u2009\u202f])[-+\u2212]?\d{1,3}(?:[\u00a0\u2009\u202f]\d{3}){1,6}(?:[.,]\d+)?(?![\p{L}\p{N}_]|[.,\u00a0\u2009\u202f]\d)/gu;
// A phone number: optional +country, then 7-15 digits in groups separated by spaces, dots,
// dashes or a parenthesised area code. After a +country code a group may hold 1 to 8
// digits, as numbering plans write them: +33 1 23 45 67 89, +44 7911 123456, +91 98765
// 43210, +49 (0)30 123456 with its trunk 0 in brackets (2-4 digits once split these into
// plain numbers). The code is followed by a space, a dash or a bracket, or the number is
// dotted throughout (+1.415.555.0123), so a signed decimal (+3.5 12345) is no phone number.
// Without a +country code, groups keep 2-4 digits, so runs of plain numbers are not read
// as phone numbers; a North American number may keep its leading 1 (1-800-555-0199, which
// once lost it). A match never starts right after a digit and a dash or dot: that is the
// tail of a longer number. Every quantifier is bounded and every group starts with a
// separator, so a long run of digits is tried in a bounded number of ways.
const PHONE =
  /(?<![\w+]|\d[.-])(?:\+\d{1,3}[\s.-]?\(\d{1,4}\)[\s.-]?\d{1,8}(?:[\s.-]\d{1,8}){0,4}|\+\d{1,8}[\s-]\d{1,8}(?:[\s.-]\d{1,8}){0,4}|\+\d{1,3}(?:\.\d{1,8}){2,5}|1[\s.-](?:\(\d{3}\)[\s.-]?|\d{3}[\s.-])\d{3}[\s.-]\d{4}|(?:\(\d{1,4}\)[\s.-]?)?\d{2,4}(?:[\s.-]\d{2,4}){1,4})(?![\w-])|(?<![\w+])\+\d{7,15}(?!\w)/g;
/** The 3-2-4 shape of a US Social Security number (123-45-6789), which no numbering plan writes. */
const SSN = /^\d{3}-\d{2}-\d{4}$/;
/** Two years joined by a dash (a range, 2019-2023): digits and a dash, yet no phone number. */
const YEAR_RANGE = /^(?:1[5-9]|2[01])\d{2}\s?[-–]\s?(?:1[5-9]|2[01])\d{2}$/;
const ISO_DATE =
  /\b(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?\b/g;
const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];
const MONTH_NAME =
  "(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";
const MONTH_FIRST = new RegExp(`\\b${MONTH_NAME}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, "gi");
const DAY_FIRST = new RegExp(
  `\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH_NAME}\\.?,?\\s+(\\d{4})\\b`,
  "gi",
);
const SLASH_DATE = /\b\d{1,2}[/.]\d{1,2}[/.]\d{4}\b/g;

/** URL characters that usually end a sentence rather than belong to the URL. */
function trimUrl(url: string): string {
  let trimmed = url.replace(/[.,;:!?'"…]+$/, "");
  // A closing parenthesis belongs to the URL only when it has an opening one (Wikipedia links).
  while (trimmed.endsWith(")") && count(trimmed, "(") < count(trimmed, ")")) trimmed = trimmed.slice(0, -1);
  return trimmed.replace(/[.,;:!?'"…]+$/, "");
}

function count(text: string, character: string): number {
  return text.split(character).length - 1;
}

export function extractEmails(text: string): string[] {
  return [...text.matchAll(EMAIL)].map((match) => match[0]);
}

/** A host without a dot that is still one: localhost, or an IPv6 address in brackets. */
const DOTLESS_HOST = /^https?:\/\/(?:localhost|\[[\da-f:.]+\])(?:[:/?#]|$)/i;

export function extractUrls(text: string): string[] {
  return [...text.matchAll(URL_PATTERN)]
    .map((match) => trimUrl(match[0]))
    .filter((url) => /\.\w/.test(url) || DOTLESS_HOST.test(url));
}

export function extractHashtags(text: string): string[] {
  return [...text.matchAll(HASHTAG)].map((match) => `#${match[1]}`);
}

export function extractMentions(text: string): string[] {
  return [...text.matchAll(MENTION)].map((match) => `@${match[1]}`);
}

/** Replaces every match by spaces, so later patterns do not see it but offsets stay the same. */
function mask(text: string, patterns: RegExp[], keep: (match: string) => boolean = () => false): string {
  return patterns.reduce(
    (masked, pattern) => masked.replace(pattern, (match) => (keep(match) ? match : " ".repeat(match.length))),
    text,
  );
}

/**
 * Whether a PHONE match is a phone number rather than a decimal (1234.5678), a list
 * (10 20 30 40), an IP address (10.20.30.40) or a dotted date (2024.10.15). E.164 allows
 * at most 15 digits, and fewer than 7 is a short code or a plain number. A +country code,
 * a parenthesised area code or a dash marks a phone number, except in the 3-2-4 shape of a
 * US Social Security number; digits grouped only by spaces or dots are one in the two
 * common national shapes: a leading trunk 0 (020 7946 0958, 01.23.45.67.89) or the North
 * American 3-3-4, with or without its leading 1 (415 555 0123, 1.800.555.0199).
 */
function isPhone(candidate: string): boolean {
  const digits = candidate.replace(/\D/g, "").length;
  if (digits < 7 || digits > 15 || YEAR_RANGE.test(candidate) || SSN.test(candidate)) return false;
  if (/[+(-]/.test(candidate)) return true;
  return candidate.startsWith("0") || /^(?:1[\s.])?\d{3}([\s.])\d{3}\1\d{4}$/.test(candidate);
}

/** Numbers standing on their own: digits inside dates, phone numbers, URLs and emails are not counted. */
export function extractNumbers(text: string): number[] {
  const masked = mask(text, [URL_PATTERN, EMAIL, ISO_DATE, SLASH_DATE, MONTH_FIRST, DAY_FIRST]);
  const unmasked = mask(masked, [PHONE], (match) => !isPhone(match));
  const found: { index: number; values: number[] }[] = [];
  for (const match of unmasked.matchAll(SPACE_GROUPED))
    found.push({ index: match.index, values: [toNumber(match[0].replace(/\s/g, "").replace(",", "."))] });
  const ungrouped = mask(unmasked, [SPACE_GROUPED]);
  for (const match of ungrouped.matchAll(DECIMAL_COMMA))
    found.push({ index: match.index, values: [toNumber(match[0].replace(/\./g, "").replace(",", "."))] });
  for (const match of ungrouped.matchAll(COMMA_RUN)) {
    if (THOUSANDS.test(match[0])) continue;
    const members = match[0].split(",");
    const before = ungrouped.slice(0, match.index);
    const bracketed = /[([]$/.test(before) && /^[)\]]/.test(ungrouped.slice(match.index + match[0].length));
    // Taken, or left out as ambiguous: either way no part of it is read again below.
    found.push({ index: match.index, values: members.length >= 3 || bracketed ? members.map(toNumber) : [] });
  }
  const taken = mask(ungrouped, [DECIMAL_COMMA, COMMA_RUN], (match) => THOUSANDS.test(match));
  for (const match of taken.matchAll(NUMBER))
    found.push({ index: match.index, values: [toNumber(match[0].replace(/,/g, ""))] });
  return found
    .sort((a, b) => a.index - b.index)
    .flatMap((entry) => entry.values)
    .filter(Number.isFinite);
}

/** A number as the patterns above match it, its sign a MINUS SIGN (U+2212) or not. */
function toNumber(text: string): number {
  return Number(text.replace("\u2212", "-"));
}

export function extractPhones(text: string): string[] {
  return [...mask(text, [ISO_DATE, SLASH_DATE]).matchAll(PHONE)]
    .map((match) => match[0].trim())
    .filter(isPhone);
}

export interface ExtractedDate {
  text: string;
  /** YYYY-MM-DD (with time when the text had one), or null when the text is ambiguous (03/04/2024). */
  iso: string | null;
}

export function extractDates(text: string): ExtractedDate[] {
  const found: { index: number; date: ExtractedDate }[] = [];
  for (const match of text.matchAll(ISO_DATE)) {
    const [whole, year, month, day] = match;
    if (validDate(Number(year), Number(month), Number(day)))
      found.push({ index: match.index, date: { text: whole, iso: whole.replace(" ", "T") } });
  }
  const named = (match: RegExpMatchArray, monthName: string, day: string, year: string) => {
    const month = MONTHS.findIndex((name) => name.startsWith(monthName.toLowerCase().slice(0, 3))) + 1;
    if (!validDate(Number(year), month, Number(day))) return;
    const iso = `${year}-${String(month).padStart(2, "0")}-${day.padStart(2, "0")}`;
    found.push({ index: match.index ?? 0, date: { text: match[0], iso } });
  };
  for (const match of text.matchAll(MONTH_FIRST))
    named(match, match[1] ?? "", match[2] ?? "", match[3] ?? "");
  for (const match of text.matchAll(DAY_FIRST)) named(match, match[2] ?? "", match[1] ?? "", match[3] ?? "");
  for (const match of text.matchAll(SLASH_DATE)) {
    const date = slashDate(match[0]);
    if (date !== undefined) found.push({ index: match.index, date });
  }
  return found.sort((a, b) => a.index - b.index).map((entry) => entry.date);
}

/**
 * A date written 25/12/2024 or 12/25/2024 (or with dots): day first in most of the world,
 * month first in the US. Its ISO form when one reading alone is a date, or both name the same
 * day (05/05/2024); null when both are dates (03/04/2024: 3 April or 4 March). Neither a date
 * (31/02/2024, 45/13/2024): not a date at all. Every one was null before, 25/12/2024 included,
 * and impossible ones were listed as dates.
 */
function slashDate(text: string): ExtractedDate | undefined {
  const [first = 0, second = 0, year = 0] = text.split(/[/.]/).map(Number);
  const dayFirst = validDate(year, second, first);
  const monthFirst = validDate(year, first, second);
  if (!dayFirst && !monthFirst) return undefined;
  if (dayFirst && monthFirst && first !== second) return { text, iso: null };
  const [month, day] = dayFirst ? [second, first] : [first, second];
  return { text, iso: `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}` };
}

function validDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
