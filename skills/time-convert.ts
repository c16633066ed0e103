import { z } from "zod";
import { defineSkill, SkillError } from "../src/core/skills/skill.js";
import { checkLuxonFormat } from "./lib/luxon-format.js";
import {
  checkZone,
  DST_WALL_TIME_NOTE,
  describeTime,
  inRange,
  loadLuxon,
  parseTime,
  timeDescription,
  timeInput,
  timeZoneParam,
} from "./lib/time.js";
import { workingZoneParam, zoneFor } from "./lib/working-zone.js";

export const timeConvert = defineSkill({
  id: "time.convert",
  title: "Convert a time between time zones",
  description:
    'Converts a date/time (ISO 8601, RFC 2822, Unix seconds or "now") from one time zone to another (e.g. UTC to ' +
    "Asia/Tokyo) and returns it " +
    'as ISO 8601, Unix seconds, date, time, weekday and optionally a custom format. Use it for "what is 9:00 in ' +
    'Berlin in New York time" or to turn a timestamp into a readable local date.',
  tags: ["time", "date", "timezone", "convert", "format", "timestamp"],
  params: z.object({
    time: timeInput,
    from_timezone: timeZoneParam(
      'Zone of `time` when it carries no offset (e.g. "2024-05-01 09:00"); ignored for inputs with an offset, Z or ' +
        "a [zone]. " +
        DST_WALL_TIME_NOTE,
    ),
    to_timezone: workingZoneParam(
      'Zone to convert to, e.g. "America/New_York". By default the zone `time` names in brackets, else UTC.',
    ),
    format: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe(
        'Optional Luxon format for `formatted`, e.g. "yyyy-MM-dd HH:mm" or "cccc d LLLL yyyy, h:mm a"; ' +
          "not strftime (%Y) or moment.js (YYYY, DD, A) tokens; literal text, even a word such as 'at', in single " +
          "quotes, as Luxon reads unquoted letters as tokens.",
      ),
  }),
  result: z.object({
    ...timeDescription,
    formatted: z.string().nullable().describe("The time in the requested format; null without `format`."),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  examples: [
    {
      query: "what is 9am Berlin time in New York",
      params: { time: "2024-05-01T09:00", from_timezone: "Europe/Berlin", to_timezone: "America/New_York" },
    },
    { query: "convert unix timestamp 1700000000 to a date", params: { time: 1700000000 } },
    {
      query: "convert noon UTC to Tokyo time",
      params: { time: "2024-05-01T12:00:00Z", from_timezone: "UTC", to_timezone: "Asia/Tokyo" },
    },
    {
      query: "show 2024-12-25T18:00:00Z in Tokyo as a readable date",
      params: { time: "2024-12-25T18:00:00Z", to_timezone: "Asia/Tokyo", format: "cccc d LLLL yyyy, HH:mm" },
    },
  ],
  async warm() {
    await loadLuxon();
  },
  async run(params) {
    const luxon = await loadLuxon();
    const fromZone = checkZone(luxon, params.from_timezone);
    const toZone = zoneFor(luxon, params.to_timezone, params.time);
    const converted = inRange(
      parseTime(luxon, params.time, fromZone).setZone(toZone),
      `The time in ${toZone}`,
    );
    let formatted: string | null = null;
    if (params.format !== undefined) {
      checkLuxonFormat(params.format);
      try {
        formatted = converted.setLocale("en-US").toFormat(params.format);
      } catch {
        throw new SkillError(
          `Invalid format ${JSON.stringify(params.format)}: use Luxon tokens such as yyyy-MM-dd HH:mm`,
        );
      }
    }
    return { ...describeTime(converted), formatted };
  },
});
