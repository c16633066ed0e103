import { SkillError } from "../../src/core/skills/skill.js";
import { likelyZones } from "./zone-abbreviations.js";

/**
 * The zone names RFC 2822 defines (section 4.3, "obs-zone"), with the offsets it gives
 * them: fixed, whatever the date (EST is -0500 in July too). Unlike a zone param's
 * abbreviation (zone-abbreviations.ts), these are not ambiguous in an RFC 2822 date: the
 * RFC says what each means, and mail and HTTP software writes them.
 */
const RFC_2822_ZONES: Record<string, string> = {
  UT: "+0000",
  // Not the RFC's, but what much software writes for UT, and it means nothing else.
  UTC: "+0000",
  GMT: "+0000",
  Z: "+0000",
  EST: "-0500",
  EDT: "-0400",
  CST: "-0600",
  CDT: "-0500",
  MST: "-0700",
  MDT: "-0600",
  PST: "-0800",
  PDT: "-0700",
};

const RFC_2822_ZONE_NAMES = "UT (or UTC), GMT, Z and the US zones EST, EDT, CST, CDT, MST, MDT, PST and PDT";

/**
 * An RFC 2822 date and time ending in a zone written in letters, as Luxon reads the
 * rest: an optional day name, day, month, year, time. Comments in parentheses and
 * runs of spaces are removed first, as Luxon removes them.
 */
const RFC_2822_WITH_NAMED_ZONE =
  /^((?:[A-Za-z]{3},\s?)?\d{1,2}\s[A-Za-z]{3}\s\d{2,4}\s\d\d:\d\d(?::\d\d)?)\s([A-Za-z]+)$/;

/**
 * `text` with an RFC 2822 zone name written as its offset, which Luxon then reads: Luxon
 * knows the names in capitals only and not UT ("... UT" failed as a mismatched weekday).
 * Any other zone name in an RFC 2822 date is refused: it is no RFC 2822 zone, and an
 * abbreviation (BST, CET, IST) is ambiguous, as in a zone param. Other texts are returned
 * as they are.
 */
export function rfc2822ZoneAsOffset(input: string, text: string): string {
  const plain = text
    .replace(/\([^()]*\)|[\n\t]/g, " ")
    .replace(/\s\s+/g, " ")
    .trim();
  const match = RFC_2822_WITH_NAMED_ZONE.exec(plain);
  if (!match) return text;
  const [, moment, zone = ""] = match;
  const offset = RFC_2822_ZONES[zone.toUpperCase()];
  if (offset !== undefined) return `${moment} ${offset}`;
  const likely = likelyZones(zone);
  const what =
    zone.length === 1
      ? "is a military zone letter, which RFC 2822 says to read as an unknown offset (RFC 822 gave them the wrong sign)"
      : "is not one RFC 2822 defines, and abbreviations are ambiguous";
  throw new SkillError(
    `The zone ${JSON.stringify(zone)} of the time ${JSON.stringify(input)} ${what}: RFC 2822 dates take ` +
      `${RFC_2822_ZONE_NAMES}, at fixed offsets (EST is -0500). Write the UTC offset instead, as in ` +
      `"${moment} +0100", or give the time as ISO 8601 with the zone as an IANA name` +
      (likely === undefined ? "" : `: ${zone} may be ${likely}`),
  );
}
