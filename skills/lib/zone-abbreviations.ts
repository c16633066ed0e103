import { SkillError } from "../../src/core/skills/skill.js";

/**
 * Zone abbreviations are ambiguous (CST is Chicago and China, IST India, Ireland and Israel)
 * and ICU reads some of them as legacy ids that mean something else: "BST" is Asia/Dhaka,
 * not British Summer Time, so 15:00 BST was 09:00Z instead of 14:00Z; "EST" is a fixed
 * -05:00 with no summer time while "PST" follows Los Angeles' DST; "EDT" and "AEST" are
 * unknown. Every name of two to five letters written all in capitals or all in lower case
 * is refused with the IANA names it most likely stands for, except the ones that mean one
 * thing. Mixed-case IANA names of that length (Japan, Cuba, Eire) are not abbreviations.
 */
const ABBREVIATION = /^(?:[A-Z]{2,5}|[a-z]{2,5})$/;

/** Names that mean one offset wherever they are written: UTC and Greenwich Mean Time. */
const UNAMBIGUOUS = new Set(["UTC", "GMT", "UCT"]);

/** The IANA zones an abbreviation usually stands for, for the message; others get examples. */
const LIKELY_ZONES: Record<string, string> = {
  BST: "Europe/London (British Summer Time)",
  IST: "Asia/Kolkata (India), Europe/Dublin (Irish Standard Time) or Asia/Jerusalem (Israel)",
  WET: "Europe/Lisbon",
  WEST: "Europe/Lisbon",
  CET: "Europe/Paris or Europe/Berlin",
  CEST: "Europe/Paris or Europe/Berlin",
  MET: "Europe/Paris or Europe/Berlin",
  EET: "Europe/Athens or Europe/Helsinki",
  EEST: "Europe/Athens or Europe/Helsinki",
  MSK: "Europe/Moscow",
  EST: "America/New_York (with its summer time) or a fixed offset like -05:00",
  EDT: "America/New_York",
  CST: "America/Chicago (US Central) or Asia/Shanghai (China Standard Time)",
  CDT: "America/Chicago",
  MST: "America/Denver, America/Phoenix (no summer time) or a fixed offset like -07:00",
  MDT: "America/Denver",
  PST: "America/Los_Angeles (with its summer time) or a fixed offset like -08:00",
  PDT: "America/Los_Angeles",
  AKST: "America/Anchorage",
  AKDT: "America/Anchorage",
  HST: "Pacific/Honolulu",
  AST: "America/Halifax (Atlantic) or Asia/Riyadh (Arabia)",
  ADT: "America/Halifax",
  NST: "America/St_Johns",
  NDT: "America/St_Johns",
  JST: "Asia/Tokyo",
  KST: "Asia/Seoul",
  HKT: "Asia/Hong_Kong",
  SGT: "Asia/Singapore",
  PHT: "Asia/Manila",
  WIB: "Asia/Jakarta",
  PKT: "Asia/Karachi",
  GST: "Asia/Dubai",
  AEST: "Australia/Sydney or Australia/Brisbane (no summer time)",
  AEDT: "Australia/Sydney",
  ACST: "Australia/Adelaide or Australia/Darwin (no summer time)",
  ACDT: "Australia/Adelaide",
  AWST: "Australia/Perth",
  NZST: "Pacific/Auckland",
  NZDT: "Pacific/Auckland",
  SAST: "Africa/Johannesburg",
  CAT: "Africa/Maputo",
  EAT: "Africa/Nairobi",
  WAT: "Africa/Lagos",
  BRT: "America/Sao_Paulo",
  ART: "America/Argentina/Buenos_Aires",
};

/** The IANA zones an abbreviation (in any case) usually stands for, when it is a known one. */
export function likelyZones(abbreviation: string): string | undefined {
  return LIKELY_ZONES[abbreviation.toUpperCase()];
}

/** Fails a time-zone abbreviation, naming the IANA zones it may stand for; lets any other name pass. */
export function refuseZoneAbbreviation(zone: string): void {
  if (!ABBREVIATION.test(zone)) return;
  const upper = zone.toUpperCase();
  if (UNAMBIGUOUS.has(upper)) return;
  const likely = likelyZones(upper);
  throw new SkillError(
    `Time zone "${zone}" looks like an abbreviation, and abbreviations are ambiguous: use ` +
      (likely === undefined ? "an IANA name such as Europe/London, America/New_York or Asia/Tokyo" : likely) +
      ", or a fixed UTC offset such as +01:00; UTC and GMT are taken as they are",
  );
}

/** Said by every zone param's description, so that an agent converts the user's abbreviation itself. */
export const ZONE_ABBREVIATION_NOTE =
  'Not an abbreviation (BST, EST, CST, IST are ambiguous and refused): e.g. "Europe/London" for BST.';
