import { z } from "zod";
import { defineSkill } from "../src/core/skills/skill.js";
import { checkZone, describeTime, loadLuxon, timeDescription, timeZoneParam } from "./lib/time.js";

export const timeNow = defineSkill({
  id: "time.now",
  title: "Current date and time",
  description:
    "Returns the current date and time in a time zone (IANA name such as Europe/Paris; UTC by default): ISO 8601, " +
    "Unix seconds, UTC offset, weekday, ISO week and whether daylight saving time is in effect. Use it whenever you " +
    "need today's date or the time somewhere.",
  tags: ["time", "date", "now", "clock", "today", "timezone"],
  params: z.object({
    timezone: timeZoneParam(
      'IANA time zone, e.g. "America/New_York", "Asia/Tokyo", or "UTC"; or a fixed UTC offset, e.g. "+05:30".',
    ),
  }),
  result: z.object({
    ...timeDescription,
    unix_ms: z.number().int().describe("Unix time in milliseconds."),
    offset_minutes: z.number().int().describe("UTC offset in minutes, e.g. 120 for +02:00."),
    day_of_year: z.number().int().describe("Day of the year, 1-366."),
    iso_week: z.number().int().describe("ISO 8601 week number, 1-53."),
    is_dst: z.boolean().describe("Whether daylight saving time is in effect in this zone."),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: false, openWorld: false },
  examples: [
    { query: "what time is it now", params: {} },
    { query: "current time in Tokyo", params: { timezone: "Asia/Tokyo" } },
    { query: "what day of the week is it in New York", params: { timezone: "America/New_York" } },
  ],
  async warm() {
    await loadLuxon();
  },
  async run(params) {
    const luxon = await loadLuxon();
    const zone = checkZone(luxon, params.timezone);
    const now = luxon.DateTime.now().setZone(zone);
    return {
      ...describeTime(now),
      unix_ms: now.toMillis(),
      offset_minutes: now.offset,
      day_of_year: now.ordinal,
      iso_week: now.weekNumber,
      is_dst: now.isInDST,
    };
  },
});
