import type { Duration, DurationLikeObject } from "luxon";
import { z } from "zod";
import { defineSkill, SkillError } from "../src/core/skills/skill.js";
import {
  addDuration,
  DST_WALL_TIME_NOTE,
  describeTime,
  inRange,
  type Luxon,
  loadLuxon,
  parseTime,
  timeDescription,
  timeInput,
} from "./lib/time.js";
import { workingZoneParam, zoneFor } from "./lib/working-zone.js";

const UNITS = ["years", "months", "weeks", "days", "hours", "minutes", "seconds", "milliseconds"] as const;
/** Bounds well past what dates can represent, so an absurd amount fails with a clear message. */
const amount = (unit: string) =>
  z.number().min(-1e12).max(1e12).optional().describe(`${unit} to add (negative to go back).`);
/** Fractional years and months have no calendar meaning. */
const wholeAmount = (unit: string) =>
  z
    .number()
    .int()
    .min(-1e6)
    .max(1e6)
    .optional()
    .describe(`Whole ${unit.toLowerCase()} to add (negative to go back).`);

export const timeAdd = defineSkill({
  id: "time.add",
  title: "Add or subtract a duration",
  description:
    "Date arithmetic: adds or subtracts years, months, weeks, days, hours, minutes and seconds (or an ISO 8601 " +
    'duration such as "P1M2DT3H") to a date/time, with calendar rules and daylight saving applied in the given time ' +
    'zone. Use it to find the date some time from now or ago: "what date is 90 days from now", "the date in two ' +
    'weeks", "3 months before 2024-05-31".',
  tags: ["time", "date", "add", "subtract", "duration", "calendar", "deadline"],
  params: z.object({
    time: timeInput.default("now"),
    timezone: workingZoneParam(
      "Zone for calendar math, for a `time` without offset or [zone] and for the result, e.g. Europe/Paris. By " +
        "default the zone `time` names in brackets, else UTC. In this zone, years, months, weeks and days move the " +
        "wall-clock date (a fraction of a week or day adds 24-hour days), then hours, minutes and seconds add " +
        `elapsed time. ${DST_WALL_TIME_NOTE} The same holds for a wall ` +
        "time the calendar units land on.",
    ),
    operation: z.enum(["add", "subtract"]).default("add").describe("Add the duration, or subtract it."),
    years: wholeAmount("Years"),
    months: wholeAmount("Months"),
    weeks: amount("Weeks"),
    days: amount("Days"),
    hours: amount("Hours"),
    minutes: amount("Minutes"),
    seconds: amount("Seconds"),
    milliseconds: amount("Milliseconds"),
    duration: z
      .string()
      .max(100)
      .optional()
      .describe('ISO 8601 duration, e.g. "P2W", "PT90M", "P1Y2M10DT2H30M"; added to the unit fields.'),
  }),
  result: z.object({
    ...timeDescription,
    input_iso: z.string().describe("The starting time, ISO 8601 in the same zone."),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  examples: [
    { query: "what date is 90 days from today", params: { days: 90 } },
    { query: "3 months before 2024-05-31", params: { time: "2024-05-31", operation: "subtract", months: 3 } },
    {
      query: "add 1 day and 2 hours to 2024-03-30 12:00 in Paris",
      params: { time: "2024-03-30T12:00", timezone: "Europe/Paris", duration: "P1DT2H" },
    },
  ],
  async warm() {
    await loadLuxon();
  },
  async run(params) {
    const luxon = await loadLuxon();
    const zone = zoneFor(luxon, params.timezone, params.time);
    const start = parseTime(luxon, params.time, zone);
    const fields: DurationLikeObject = {};
    for (const unit of UNITS) {
      const value = params[unit];
      if (value !== undefined) fields[unit] = value;
    }
    let duration = luxon.Duration.fromObject(fields);
    if (params.duration !== undefined) duration = duration.plus(readDuration(luxon, params.duration));
    if (Object.keys(fields).length === 0 && params.duration === undefined) {
      throw new SkillError(
        "Nothing to add: give at least one of years, months, weeks, days, hours, minutes, seconds or duration",
      );
    }
    const result = addDuration(start, params.operation === "add" ? duration : duration.negate());
    return { ...describeTime(inRange(result, "The resulting date")), input_iso: start.toISO() ?? "" };
  },
});

/**
 * Luxon also takes "P" and "PT", which ISO 8601 does not (a duration needs at least one
 * number, and T must be followed by a time part), and fractional years or months, which
 * the years and months fields refuse for having no calendar meaning: both are refused here.
 */
function readDuration(luxon: Luxon, text: string): Duration {
  const parsed = luxon.Duration.fromISO(text);
  if (!parsed.isValid || !/\d/.test(text) || /T$/.test(text)) {
    throw new SkillError(
      `Invalid ISO 8601 duration ${JSON.stringify(text)}: use forms like P3D, PT2H30M, P1Y2M`,
    );
  }
  if (!Number.isInteger(parsed.years) || !Number.isInteger(parsed.months)) {
    throw new SkillError(
      `Invalid duration ${JSON.stringify(text)}: years and months must be whole, as fractional ones have no ` +
        "calendar meaning (write P1Y6M, not P1.5Y)",
    );
  }
  return parsed;
}
