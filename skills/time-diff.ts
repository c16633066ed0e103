import type { DateTime, Duration, DurationUnit } from "luxon";
import { z } from "zod";
import { defineSkill } from "../src/core/skills/skill.js";
import {
  checkZone,
  DEFAULT_ZONE,
  DST_WALL_TIME_NOTE,
  isDateOnly,
  isNow,
  type Luxon,
  loadLuxon,
  outOfRange,
  parseTime,
  timeInput,
} from "./lib/time.js";
import { readAnnotations } from "./lib/time-annotations.js";
import { bracketedZones, workingZoneParam } from "./lib/working-zone.js";

const UNITS = ["years", "months", "weeks", "days", "hours", "minutes", "seconds"] as const;
type Unit = (typeof UNITS)[number];

export const timeDiff = defineSkill({
  id: "time.diff",
  title: "Difference between two dates",
  description:
    'Computes the time between two dates/times (ISO 8601, RFC 2822, Unix seconds or "now"): a calendar-aware ' +
    "breakdown in chosen units (e.g. 1 year, 2 months, 3 days) plus totals in days, hours, minutes and seconds. " +
    'Use it for ages, countdowns ("how long until"), durations and elapsed time; negative when end is before start. ' +
    'In units of days or larger, "now" against a date without a time is today\'s date.',
  tags: ["time", "date", "difference", "duration", "between", "age", "countdown", "elapsed"],
  params: z.object({
    start: timeInput,
    end: timeInput.default("now"),
    timezone: workingZoneParam(
      "Zone for calendar units and for inputs without an offset or [zone]. By default the zone `start` or `end` " +
        "names in brackets, else UTC (also when they name two zones: days of 24 hours). " +
        DST_WALL_TIME_NOTE,
    ),
    units: z
      .array(z.enum(UNITS))
      .min(1)
      .max(UNITS.length)
      .default(["days", "hours", "minutes", "seconds"])
      .describe('Units of the breakdown, largest first is not required; e.g. ["years","months","days"].'),
  }),
  result: z.object({
    breakdown: z
      .record(z.string(), z.number())
      .describe(
        "The difference split over the requested units, e.g. {days: 2, hours: 3, minutes: 0, seconds: 0}.",
      ),
    human: z.string().describe('The breakdown in words, e.g. "2 days, 3 hours"; "0 seconds" when equal.'),
    iso_duration: z
      .string()
      .describe(
        'The breakdown as an ISO 8601 duration, e.g. P2DT3H; "-P2DT3H" when end is before start. A fraction of ' +
          "a year or month, which has no fixed length, is written as the days and time it stands for (P1M14D, " +
          "not P1.48M), so time.add takes it back.",
      ),
    total_days: z.number().describe("Exact difference in days (may have a fraction)."),
    total_hours: z.number().describe("Exact difference in hours."),
    total_minutes: z.number().describe("Exact difference in minutes."),
    total_seconds: z.number().describe("Exact difference in seconds."),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  examples: [
    {
      query: "how many days between 2024-01-01 and 2024-03-01",
      params: { start: "2024-01-01", end: "2024-03-01", units: ["days"] },
    },
    {
      query: "how old is someone born on 1990-06-15",
      params: { start: "1990-06-15", units: ["years", "months", "days"] },
    },
    { query: "how long until new year 2030", params: { start: "now", end: "2030-01-01T00:00:00Z" } },
  ],
  async warm() {
    await loadLuxon();
  },
  async run(params) {
    const luxon = await loadLuxon();
    // Luxon wants the units in descending size to split the difference into them.
    const units = UNITS.filter((unit) => params.units.includes(unit));
    const zone = diffZone(luxon, params);
    const start = readMoment(luxon, params.start, params.end, zone, units);
    const end = readMoment(luxon, params.end, params.start, zone, units);
    const diff = calendarDiff(start, end, units);
    const breakdown: Record<string, number> = {};
    for (const unit of units) breakdown[unit] = round(diff.get(unit));
    if (Object.values(breakdown).some((value) => !Number.isFinite(value))) {
      throw outOfRange("The difference");
    }
    const milliseconds = end.toMillis() - start.toMillis();
    return {
      breakdown,
      human: humanize(breakdown, units),
      iso_duration: isoDuration(luxon.Duration.fromObject(isoParts(start, end, units, breakdown))),
      total_days: round(milliseconds / 86_400_000),
      total_hours: round(milliseconds / 3_600_000),
      total_minutes: round(milliseconds / 60_000),
      total_seconds: round(milliseconds / 1000),
    };
  },
});

const CALENDAR_UNITS = ["years", "months", "weeks", "days"] as const;

/**
 * The zone to count in: `timezone`, else the zone `start` or `end` names in brackets, as
 * Temporal's ZonedDateTime.until counts in the zone the times carry, else UTC. Two zones leave
 * the length of a day open (23 hours in one, 24 in the other): Temporal refuses to count days
 * then, but an agent asking how long a flight from New York to Paris takes wants an answer,
 * so UTC's days of 24 hours count, as the description says.
 */
function diffZone(
  luxon: Luxon,
  params: { start: string | number; end: string | number; timezone?: string | undefined },
): string {
  if (params.timezone !== undefined) return checkZone(luxon, params.timezone);
  const zones = bracketedZones(luxon, [params.start, params.end]);
  return zones.length === 1 ? (zones[0] as string) : DEFAULT_ZONE;
}

/**
 * Reads `input`, one end of the difference. "now" opposite a date without a time is today's date
 * when the smallest unit asked is a day or larger, as an age or a count of days means: the age
 * of someone born on 1990-06-15 was "36 years, 5 months, 15.055632 days", counting the hours of
 * today. Today is the date now in the zone the date is read in (its [zone], else `zone`), read
 * as that date is.
 */
function readMoment(
  luxon: Luxon,
  input: string | number,
  other: string | number,
  zone: string,
  units: Unit[],
): DateTime {
  const byDate = units.every((unit) => (CALENDAR_UNITS as readonly string[]).includes(unit));
  if (!byDate || !isNow(input) || !isDateOnly(other)) return parseTime(luxon, input, zone);
  const dateZone = readAnnotations(String(other)).zone;
  const now = luxon.DateTime.now().setZone(checkZone(luxon, dateZone ?? zone));
  const today = now.toFormat("yyyy-MM-dd");
  return parseTime(luxon, dateZone === undefined ? today : `${today}[${dateZone}]`, zone);
}

/**
 * Luxon splits a difference into calendar units by stepping from the earlier moment and
 * may overshoot the later one by one of the largest unit before it steps back (its
 * impl/diff.js). Near the end of the date range that step is a moment Luxon cannot hold,
 * and the diff threw "Invalid unit value NaN", so the room for it is checked first.
 */
function calendarDiff(start: DateTime, end: DateTime, units: Unit[]): Duration {
  const largest = CALENDAR_UNITS.find((unit) => units.includes(unit));
  const later = end > start ? end : start;
  if (largest !== undefined && !later.plus({ [largest]: 1, days: 1 }).isValid) {
    throw outOfRange(
      `The difference in ${largest}`,
      `, and splitting into ${largest} needs one ${largest.slice(0, -1)} of room before the end: ask for hours ` +
        "or smaller units",
    );
  }
  return end.diff(start, units as DurationUnit[]);
}

/**
 * The parts iso_duration writes: the breakdown, except that a fraction of years or months, the
 * smallest unit asked, is written as the days and time after the whole ones. A year or month has
 * no fixed length, so "P1.482759M" (2024-01-01 to 2024-02-15) named no span time.add or any other
 * reader could add, and time.add refused it; "P1M14D" lands on the end again, the calendar part
 * stepped first and the time after it elapsed, as time.add adds them.
 */
function isoParts(
  start: DateTime,
  end: DateTime,
  units: Unit[],
  breakdown: Record<string, number>,
): Record<string, number> {
  const smallest = units[units.length - 1];
  if ((smallest !== "years" && smallest !== "months") || Number.isInteger(breakdown[smallest]))
    return breakdown;
  const finer: Unit[] = [...units, "days", "hours", "minutes", "seconds"];
  const parts = end.diff(start, finer as DurationUnit[]).toObject();
  return Object.fromEntries(Object.entries(parts).map(([unit, value]) => [unit, round(value)]));
}

/**
 * ISO 8601 has no negative components, and Luxon writes a negative duration as
 * "P-1DT-12H". The common signed extension (ISO 8601-2, XML Schema, java.time's
 * parser) puts one minus in front: "-P1DT12H".
 */
function isoDuration(duration: Duration): string {
  // Luxon's diff gives every unit the same sign.
  const negative = Object.values(duration.toObject()).some((value) => value < 0);
  const text = (negative ? duration.negate() : duration).toISO() ?? "PT0S";
  return negative ? `-${text}` : text;
}

/**
 * The one rounding of every figure of the result, the breakdown (and so iso_duration and human)
 * and the totals: six decimals of its unit hide float noise (2.0000000000000004 days) without
 * losing a second, and keep every millisecond of a difference in seconds. The moments are whole
 * milliseconds (parseTime), so a difference in seconds has at most three decimals, as many as
 * Luxon writes in an ISO duration; total_seconds was left unrounded (1.444400146484375).
 */
function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

function humanize(breakdown: Record<string, number>, units: Unit[]): string {
  const parts = units
    .filter((unit) => breakdown[unit] !== 0)
    .map((unit) => {
      const value = breakdown[unit] ?? 0;
      const name = Math.abs(value) === 1 ? unit.slice(0, -1) : unit;
      return `${value} ${name}`;
    });
  return parts.length > 0 ? parts.join(", ") : `0 ${units[units.length - 1] ?? "seconds"}`;
}
