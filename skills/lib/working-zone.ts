import { checkZone, DEFAULT_ZONE, type Luxon } from "./time.js";
import { readAnnotations } from "./time-annotations.js";
import { trimmedText } from "./trimmed-text.js";
import { ZONE_ABBREVIATION_NOTE } from "./zone-abbreviations.js";
import { zoneIdentity } from "./zone-names.js";

/**
 * A zone param that may be left out for the zone the time names in brackets (`zoneFor`). It
 * has no schema default, as a default would hide whether the caller gave one; the descriptions
 * say what it is.
 */
export function workingZoneParam(description: string) {
  return trimmedText(64).optional().describe(`${description} ${ZONE_ABBREVIATION_NOTE}`);
}

/**
 * The distinct zones `times` name in brackets (RFC 9557), checked, in order. Two spellings of
 * one zone (`America/New_York` and `america/new_york`, or the alias `US/Eastern`) are one
 * zone, as Temporal counts them: the first spelling stands for both.
 */
export function bracketedZones(luxon: Luxon, times: readonly (string | number)[]): string[] {
  const zones = new Map<string, string>();
  for (const time of times) {
    const zone = typeof time === "string" ? readAnnotations(time).zone : undefined;
    if (zone === undefined) continue;
    const checked = checkZone(luxon, zone);
    const identity = zoneIdentity(checked);
    if (!zones.has(identity)) zones.set(identity, checked);
  }
  return [...zones.values()];
}

/**
 * The zone to compute and answer in: the one the param names, as its description promises,
 * else the one `time` names in brackets, as Temporal's ZonedDateTime works in the zone it
 * carries ("...T12:00-05:00[America/New_York]" plus a day is noon in New York), else UTC.
 */
export function zoneFor(luxon: Luxon, param: string | undefined, time: string | number): string {
  return checkZone(luxon, param ?? bracketedZones(luxon, [time])[0] ?? DEFAULT_ZONE);
}
