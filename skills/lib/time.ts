import type { DateTime, Duration } from "luxon";
import { z } from "zod";
import { SkillError } from "../../src/core/skills/skill.js";
import { lazy } from "./lazy.js";
import { rfc2822ZoneAsOffset } from "./rfc2822-zone.js";
import { readAnnotations } from "./time-annotations.js";
import { trimmedText } from "./trimmed-text.js";
import { weekdayMismatch } from "./weekday-mismatch.js";
import { refuseZoneAbbreviation, ZONE_ABBREVIATION_NOTE } from "./zone-abbreviations.js";
import { ianaSpelling } from "./zone-names.js";

export const loadLuxon = lazy(() => import("luxon"));
export type Luxon = Awaited<ReturnType<typeof loadLuxon>>;

/**
 * Unix seconds are at most 1e11 in absolute value (the years -1199 to 5138). Millisecond
 * timestamps (JavaScript's Date.now(), many JSON APIs) are above it for any date after
 * 1973, and read as seconds they gave the year 55840 without a word, or a difference
 * 1000 times too large. The bounds are inclusive: the JSON Schema then says `minimum` and
 * `maximum`, which every function-calling API takes, where exclusive ones are refused by
 * some (Gemini's parameters); the one value told apart differently is the bound itself.
 */
const MAX_UNIX_SECONDS = 1e11;
const millisecondsHint = (issue: { input: unknown }) =>
  `${String(issue.input)} is beyond ±1e11 Unix seconds (the years -1199 to 5138): it looks like Unix milliseconds: ` +
  "divide by 1000";

export const timeInput = z
  .union([
    trimmedText(100),
    z
      .number()
      .min(-MAX_UNIX_SECONDS, { error: millisecondsHint })
      .max(MAX_UNIX_SECONDS, { error: millisecondsHint }),
  ])
  .describe(
    'A moment: ISO 8601 ("2024-05-01T14:30:00Z", "2024-05-01 14:30", "2024-05-01", "20240501", "2024"), ' +
      'optionally with a zone in brackets (RFC 9557, as Temporal writes it: "2026-11-01T01:30:00-05:00[America/New_York]", ' +
      "the offset then being one the zone has at that time), RFC 2822 (with an offset, or one of its zones UT (or UTC), GMT, " +
      "Z, EST, EDT, CST, CDT, MST, MDT, PST, PDT at the RFC's fixed offsets: EST is -05:00 in July too; other " +
      "abbreviations are refused), HTTP date, Unix seconds as a number " +
      '(1714573800, or 1714573800.25 to the millisecond; not "1714573800"; not milliseconds), or "now".',
  );

/**
 * Luxon marks a moment invalid, rather than failing, when it or its wall-clock time in its
 * zone leaves the range of a JavaScript Date: ±8.64e15 ms from 1970 (ECMA-262, "Time
 * Values and Time Range"). Without a check it surfaced as NaN fields or a thrown luxon error.
 */
export function outOfRange(what: string, detail = ""): SkillError {
  return new SkillError(
    `${what} is out of range: dates must lie between -271821-04-20 and +275760-09-13 (UTC), the limits of ` +
      `JavaScript dates${detail}`,
  );
}

/** Returns `moment`, or throws `outOfRange` when Luxon could not represent it. */
export function inRange(moment: DateTime, what = "The time"): DateTime {
  if (!moment.isValid) throw outOfRange(what);
  return moment;
}

/**
 * How a wall-clock time without an offset is read where a DST change makes it ambiguous, for
 * the descriptions of the zone params that read one (see `laterReading`).
 */
export const DST_WALL_TIME_NOTE =
  "A time the clocks skip (DST) is moved forward by the gap (02:30 becomes 03:30); one they repeat is read at its " +
  "later, standard-time offset.";

/** The zone a zone param left out stands for, unless the time names one (see working-zone.ts). */
export const DEFAULT_ZONE = "UTC";

export function timeZoneParam(description: string) {
  return trimmedText(64).default(DEFAULT_ZONE).describe(`${description} ${ZONE_ABBREVIATION_NOTE}`);
}

/** The bound java.time and most libraries set on a UTC offset; real zones stay within -12:00..+14:00. */
const MAX_OFFSET_MINUTES = 18 * 60;

const SERVER_ZONE_NAMES = new Set(["local", "system", "default"]);

/**
 * A fixed UTC offset given as a zone, as RFC 9557 writes one in brackets, Temporal names an
 * offset zone and a result names it (`zoneLabel`): "+05:30", and also "+0530" and "+05".
 */
const OFFSET_ZONE = /^([+-])(\d\d)(?::?(\d\d))?$/;

/**
 * The minutes of an offset, in a zone ("+05:30", "+0530", "UTC+5:30") and at the end of a
 * time ("10:00+05:30", "10:00:00 +0530"). RFC 3339 and RFC 9557 write them 00 to 59, and
 * Temporal refuses others; Luxon reads "+05:60" as +06:00, so a slip moved a time silently.
 */
const ZONE_OFFSET_MINUTES = /^(?:[+-]\d\d:?|UTC[+-]\d{1,2}:)(\d\d)$/i;
const TIME_OFFSET_MINUTES = /\d\d:\d\d(?::\d\d(?:[.,]\d+)?)? ?[+-]\d\d:?(\d\d)$/;

function checkOffsetMinutes(offset: RegExpExecArray | null, where: string): void {
  const minutes = offset?.[1];
  if (minutes !== undefined && Number(minutes) > 59) {
    throw new SkillError(
      `Invalid UTC offset in ${where}: its minutes run from 00 to 59 (an hour more is written in the hours, as +06:00)`,
    );
  }
}

/**
 * Checks a zone name (IANA like "Europe/Paris", or "UTC", "Z", "UTC+2", "+05:30"), returning
 * the name Luxon reads it by. Abbreviations other than UTC and GMT are refused
 * (zone-abbreviations.ts).
 */
export function checkZone(luxon: Luxon, zone: string): string {
  // RFC 3339's and ISO 8601's name for UTC, which Luxon does not read as a zone.
  if (zone === "Z" || zone === "z") return DEFAULT_ZONE;
  // Luxon reads these names as the zone of the machine it runs on (and "default" as its
  // configured default, the same unless changed): the server's zone, not the caller's.
  if (SERVER_ZONE_NAMES.has(zone.toLowerCase())) {
    throw new SkillError(
      `Time zone "${zone}" would be the server's zone, not yours: give an IANA zone such as Europe/Paris, ` +
        "America/New_York or Asia/Tokyo, or UTC",
    );
  }
  refuseZoneAbbreviation(zone);
  checkOffsetMinutes(ZONE_OFFSET_MINUTES.exec(zone), JSON.stringify(zone));
  // Luxon reads an offset only after "UTC".
  const offset = OFFSET_ZONE.exec(zone);
  const probe = luxon.DateTime.now().setZone(
    offset === null ? zone : `UTC${offset[1]}${offset[2]}:${offset[3] ?? "00"}`,
  );
  if (!probe.isValid) {
    throw new SkillError(
      `Unknown time zone "${zone}": use an IANA name such as Europe/Paris, America/New_York or Asia/Tokyo, UTC, ` +
        "or a UTC offset such as +05:30",
    );
  }
  // Luxon takes any fixed offset, so "UTC+99" would move a date by four days.
  if (Math.abs(probe.offset) > MAX_OFFSET_MINUTES) {
    throw new SkillError(`Invalid UTC offset in "${zone}": offsets range from UTC-18:00 to UTC+18:00`);
  }
  // Luxon keeps an IANA name as written: "europe/paris" came back in results as it was sent.
  return probe.zone.type === "iana" ? ianaSpelling(probe.zone.name) : (probe.zoneName ?? zone);
}

/** An ISO 8601 date without a time (2024-05-01, 20240501, 2024, 2024-W18-3, 2024-122), as readTime reads them. */
const DATE_ONLY = /^[+-]?\d[\d-]*(?:W\d[\d-]*)?$/;

/** Whether `input` is a date without a time of day, and no moment: "now", a time or Unix seconds are not. */
export function isDateOnly(input: string | number): boolean {
  return typeof input === "string" && DATE_ONLY.test(readAnnotations(input).text);
}

/** Whether `input` names the current moment. */
export function isNow(input: string | number): boolean {
  return typeof input === "string" && input.toLowerCase() === "now";
}

/**
 * Reads a moment. A text without an offset is a wall-clock time in `zone`, or in the zone it
 * names in brackets (RFC 9557, "2026-11-01T01:30:00[America/New_York]"); one with an offset
 * or "Z" is that absolute moment, an offset beside a bracketed zone being one the zone has at
 * that wall time. The result is expressed in `zone`.
 */
export function parseTime(luxon: Luxon, input: string | number, zone: string): DateTime {
  const parsed = readTime(luxon, input, zone);
  if (!parsed?.isValid) {
    throw new SkillError(
      `Cannot read the time ${JSON.stringify(input)}: use ISO 8601 such as 2024-05-01T14:30:00Z or ` +
        "2024-05-01 14:30, RFC 2822, or Unix seconds as a number",
    );
  }
  return parsed;
}

function readTime(luxon: Luxon, input: string | number, zone: string): DateTime | undefined {
  const { DateTime } = luxon;
  const what = `The time ${JSON.stringify(input)}`;
  // To the millisecond, as Luxon reads an ISO fraction and holds every moment: a finer fraction
  // was kept by Luxon's timestamp but dropped by its calendar steps, so time.diff's breakdown and
  // totals disagreed (0.0009 s against 0.0005 s).
  if (typeof input === "number") {
    return inRange(DateTime.fromMillis(Math.round(input * 1000), { zone, locale: "en-US" }), what);
  }
  if (isNow(input)) return DateTime.now().setZone(zone).setLocale("en-US");
  // The suffixes are read here rather than by Luxon, which reads "[zone]" but drops the
  // offset beside it: "01:30-04:00[America/New_York]" was 01:30-05:00, an hour off.
  const annotated = readAnnotations(input);
  const textZone = annotated.zone === undefined ? zone : checkZone(luxon, annotated.zone);
  const parsed = /^[-+]?\d+(\.\d+)?$/.test(annotated.text)
    ? readDigits(luxon, input, annotated.text, textZone)
    : readText(luxon, input, annotated.text, textZone);
  if (parsed === undefined) return undefined;
  let moment: DateTime;
  // A time read in its zone gets the zone's name; one with its own offset a fixed zone.
  if (parsed.zoneName === textZone) moment = laterReading(parsed);
  else if (annotated.zone === undefined || /z$/i.test(annotated.text)) moment = parsed;
  else moment = offsetInZone(luxon, input, parsed, textZone);
  return inRange(moment.setZone(zone), `${what} in ${zone}`);
}

/**
 * An ISO 8601 date and time with a space before its offset ("2024-05-01T12:00:00 +02:00"), as
 * logs and some libraries write it. ISO 8601 and RFC 3339 put none there, and Luxon refused it,
 * but a signed offset or Z right after a time can be read no other way.
 */
const SPACE_BEFORE_OFFSET =
  /^([+-]?\d{4,6}-?\d\d-?\d\d[T ]\d\d(?::?\d\d(?::?\d\d(?:[.,]\d+)?)?)?) +([+-]\d\d(?::?\d\d)?|Z)$/i;

function readText(luxon: Luxon, input: string, written: string, zone: string): DateTime | undefined {
  const { DateTime } = luxon;
  const text = rfc2822ZoneAsOffset(input, written.replace(SPACE_BEFORE_OFFSET, "$1$2"));
  const parsers = [DateTime.fromISO, DateTime.fromRFC2822, DateTime.fromHTTP, DateTime.fromSQL].map(
    (parser) => parser.bind(DateTime),
  );
  let beyondRange = false;
  let mismatchedWeekday = false;
  for (const parser of parsers) {
    // setZone keeps the text's own offset, to check it as zones are checked (checkZone).
    const parsed = parser(text, { zone, locale: "en-US", setZone: true });
    if (!parsed.isValid) {
      // Luxon's reason for a text it read whose moment a Date cannot hold; a text it could
      // not read is "unparsable", a day 30 of February "unit out of range", and an RFC 2822
      // or HTTP date whose weekday is not its date's "mismatched weekday".
      beyondRange ||= parsed.invalidReason === "invalid input";
      mismatchedWeekday ||= parsed.invalidReason === "mismatched weekday";
      continue;
    }
    if (Math.abs(parsed.offset) > MAX_OFFSET_MINUTES) {
      throw new SkillError(
        `Invalid UTC offset in the time ${JSON.stringify(input)}: offsets range from -18:00 to +18:00`,
      );
    }
    checkOffsetMinutes(TIME_OFFSET_MINUTES.exec(text), `the time ${JSON.stringify(input)}`);
    return parsed;
  }
  if (beyondRange) throw outOfRange(`The time ${JSON.stringify(input)}`);
  if (mismatchedWeekday) {
    const weekdays = {
      short: luxon.Info.weekdays("short", { locale: "en-US" }),
      long: luxon.Info.weekdays("long", { locale: "en-US" }),
    };
    throw weekdayMismatch(input, text, zone, parsers, weekdays);
  }
  return undefined;
}

/**
 * A string of digits is an ISO 8601 basic date, as the param's description says: a year
 * ("2024"), a calendar date ("20240501") or an ordinal date ("2024122"); Unix seconds come
 * as a number. Read as seconds, "20240501" was a moment in August 1970. Other digit strings
 * are refused, not guessed: Luxon would read "12" as noon today and "202405" as a month,
 * a form ISO 8601 leaves out because it reads like YYMMDD, and "1714573800" is most likely
 * seconds sent as a string.
 */
function readDigits(luxon: Luxon, input: string, digits: string, zone: string): DateTime {
  const date = /^\d{4}(?:\d{3,4})?$/.test(digits)
    ? luxon.DateTime.fromISO(digits, { zone, locale: "en-US" })
    : undefined;
  if (date?.isValid) return date;
  throw new SkillError(
    `Cannot read the time ${JSON.stringify(input)}: a string of digits is read as an ISO 8601 date ` +
      "(2024, 20240501); give Unix seconds as a number, without quotes",
  );
}

/**
 * The moment an offset and a bracketed zone name together, as Temporal's ZonedDateTime.from
 * reads them (its default `offset: "reject"`): the offset picks one of the two readings of a
 * repeated wall time, and one the zone does not have at that wall time is refused rather
 * than guessed, since either the offset or the zone is wrong. Luxon reads offsets to the
 * minute, so they are matched to the minute, as Temporal matches an offset written without
 * seconds: a zone's local mean time has seconds (New York's was -04:56:02).
 */
function offsetInZone(luxon: Luxon, input: string, parsed: DateTime, zone: string): DateTime {
  const zoneRules = luxon.DateTime.now().setZone(zone).zone;
  const wallMs = parsed.toMillis() + parsed.offset * 60_000;
  const offsetsAround = new Set([zoneRules.offset(wallMs - DAY_MS), zoneRules.offset(wallMs + DAY_MS)]);
  const offsets = [...offsetsAround].filter(Number.isFinite);
  const fitting = offsets.filter((offset) => zoneRules.offset(wallMs - offset * 60_000) === offset);
  const match = fitting.find((offset) => Math.round(offset) === parsed.offset);
  if (match !== undefined)
    return luxon.DateTime.fromMillis(wallMs - match * 60_000, { zone, locale: "en-US" });
  const text = (offset: number) => luxon.FixedOffsetZone.instance(offset).formatOffset(0, "short");
  const wallClock = parsed.toFormat("yyyy-MM-dd'T'HH:mm:ss");
  const given = `The offset ${text(parsed.offset)} in the time ${JSON.stringify(input)}`;
  if (fitting.length > 0) {
    throw new SkillError(
      `${given} does not fit ${zone}, where ${wallClock} is at ${fitting.map(text).join(" or ")}: give ` +
        `${fitting.length > 1 ? "one of those" : "that offset"}, or drop the offset to read the time in the zone`,
    );
  }
  const [before, after] = offsets;
  if (before === undefined || after === undefined) throw outOfRange(`The time ${JSON.stringify(input)}`);
  throw new SkillError(
    `${given} names ${wallClock}, a wall time ${zone} skips (its clocks go from ${text(before)} to ` +
      `${text(after)}): drop the offset to have it moved forward by the gap, or correct the time`,
  );
}

/** Transitions of one zone lie more than this apart, so its offset a day on is the one after the next. */
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The later of the two moments a wall-clock time names when the clocks go back over it, the
 * rule PostgreSQL follows, whatever the date today. Luxon starts from the zone's offset now
 * and keeps it when it fits, so 2024-10-27 02:30 in Paris was +02:00 when read in summer and
 * +01:00 in winter. A time the clocks skip Luxon already moves forward by the gap, the same
 * all year. A moment with a fixed offset has one reading and is returned as it is.
 */
function laterReading(moment: DateTime): DateTime {
  const offsetAfter = moment.zone.offset(moment.toMillis() + DAY_MS);
  // The later reading has the offset in force after the change, which is the smaller one.
  if (!(offsetAfter < moment.offset)) return moment;
  const later = moment.plus({ minutes: moment.offset - offsetAfter });
  const wallClock = (reading: DateTime) => reading.toISO({ includeOffset: false });
  return wallClock(later) === wallClock(moment) ? later : moment;
}

/**
 * `moment` plus `duration` (a negative part goes back). Years, months, weeks and whole days
 * move the wall-clock date in the moment's zone, then the rest is added as elapsed time, as
 * Luxon and Temporal do. A wall time the date lands on that the clocks repeat is read at its
 * later offset, the rule every wall time here follows (`laterReading`): Luxon kept the start's
 * offset when it fit, so Oct 31 01:30 EDT plus a day was 01:30 EDT and Nov 8 01:30 EST minus
 * a week was 01:30 EST, the same wall time at two moments.
 */
export function addDuration(moment: DateTime, duration: Duration): DateTime {
  const calendar = {
    years: duration.years,
    months: duration.months,
    weeks: Math.trunc(duration.weeks),
    days: Math.trunc(duration.days),
  };
  const elapsedMs = duration.minus(calendar).as("milliseconds");
  // Without a calendar step the moment stays as given, even at the earlier of two readings.
  const dated = Object.values(calendar).some((value) => value !== 0)
    ? laterReading(moment.plus(calendar))
    : moment;
  return dated.plus({ milliseconds: elapsedMs });
}

export const timeDescription = {
  iso: z.string().describe("ISO 8601 with offset, e.g. 2024-05-01T16:30:00.000+02:00."),
  unix: z.number().describe("Unix time in seconds (may have a fraction)."),
  timezone: z
    .string()
    .describe(
      'Time zone the other fields are expressed in: an IANA name such as "Europe/Paris", or "UTC"; for a fixed ' +
        'offset (a [+05:30] time, a "UTC+5:30" zone), that offset as RFC 9557 and Temporal name it, e.g. "+05:30". ' +
        "Every zone param of the time skills, and a [zone] in a time, takes it back.",
    ),
  offset: z.string().describe('UTC offset, e.g. "+02:00".'),
  date: z.string().describe("Calendar date, YYYY-MM-DD."),
  time: z.string().describe("Wall-clock time, HH:mm:ss."),
  weekday: z.string().describe('Day of the week in English, e.g. "Wednesday".'),
};

export function describeTime(moment: DateTime): {
  iso: string;
  unix: number;
  timezone: string;
  offset: string;
  date: string;
  time: string;
  weekday: string;
} {
  // The last guard before NaN fields would make the result fail its own schema.
  const english = inRange(moment).setLocale("en-US");
  return {
    iso: english.toISO() ?? "",
    unix: english.toMillis() / 1000,
    timezone: zoneLabel(english),
    offset: english.toFormat("ZZ"),
    date: english.toFormat("yyyy-MM-dd"),
    time: english.toFormat("HH:mm:ss"),
    weekday: english.toFormat("cccc"),
  };
}

/**
 * The zone a result names: its IANA name, or UTC; a fixed offset as RFC 9557 writes it in
 * brackets and Temporal, java.time and Intl (ECMA-402 since 2024) read it, "+05:30", which
 * `checkZone` takes back. Luxon's own name for it, "UTC+5:30", none of them reads, nor a
 * bracket, and it was in a field described as an IANA name.
 */
function zoneLabel(moment: DateTime): string {
  if (moment.zone.type === "fixed" && moment.offset !== 0) return moment.toFormat("ZZ");
  return moment.zoneName ?? DEFAULT_ZONE;
}
