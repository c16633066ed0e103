import type { DateTime } from "luxon";
import { SkillError } from "../../src/core/skills/skill.js";

type Parse = (text: string, options: { zone: string; locale: string; setZone: boolean }) => DateTime;

/**
 * The refusal of an RFC 2822 or HTTP date whose weekday is not the one of its date
 * ("Tue, 01 Jul 2022 10:00:00 EST": 1 July 2022 was a Friday), which Luxon reads as invalid and
 * which was refused with the formats to use, as if it could not be read at all. The date's own
 * weekday is found by writing each weekday, in the form written (Fri or Friday), in its place.
 */
export function weekdayMismatch(
  input: string,
  text: string,
  zone: string,
  parsers: Parse[],
  weekdays: { short: string[]; long: string[] },
): SkillError {
  const written = /^[A-Za-z]+/.exec(text.trimStart())?.[0] ?? "";
  const names = written.length > 3 ? weekdays.long : weekdays.short;
  const index = names.findIndex((name) =>
    parsers.some(
      (parse) => parse(text.replace(written, name), { zone, locale: "en-US", setZone: true }).isValid,
    ),
  );
  const actual =
    index < 0 ? "" : `: the date is a ${weekdays.long[index]}; write ${JSON.stringify(names[index])} instead`;
  return new SkillError(
    `The weekday ${JSON.stringify(written)} of the time ${JSON.stringify(input)} does not match its date${actual}`,
  );
}
