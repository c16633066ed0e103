import { SkillError } from "../../src/core/skills/skill.js";

/**
 * RFC 9557, the format of Temporal's strings, extends an RFC 3339 time with bracketed
 * suffixes: first an optional time zone ("[America/New_York]", "[+05:30]"), then tags such
 * as "[u-ca=iso8601]". A "!" marks one the reader must understand or refuse (section 3.3).
 */
export interface AnnotatedTime {
  /** The time without its suffixes. */
  text: string;
  /** The zone in brackets, an IANA name or an offset ("+05:30"), as checkZone reads it, if any. */
  zone: string | undefined;
}

const SUFFIXES = /^(.*?)((?:\[[^[\]]+\])+)$/s;
const SUFFIX = /\[(!?)([^[\]]+)\]/g;
const TAG = /^([a-z_][a-z0-9_-]*)=([A-Za-z0-9]+(?:-[A-Za-z0-9]+)*)$/;
/** Calendars whose dates are the ISO 8601 (proleptic Gregorian) dates the time skills compute in. */
const ISO_CALENDARS = new Set(["iso8601", "gregory"]);

/** Splits RFC 9557 suffixes from a time, refusing those it cannot honour. */
export function readAnnotations(input: string): AnnotatedTime {
  const match = SUFFIXES.exec(input);
  if (match?.[1] === undefined || match[2] === undefined) return { text: input, zone: undefined };
  let zone: string | undefined;
  let first = true;
  for (const [suffix, critical, content = ""] of match[2].matchAll(SUFFIX)) {
    const tag = TAG.exec(content);
    if (tag === null) {
      if (!first) {
        throw new SkillError(
          `The time zone ${suffix} in the time ${JSON.stringify(input)} must be its first bracketed suffix, and ` +
            'only one: e.g. "2026-11-01T01:30:00-05:00[America/New_York]"',
        );
      }
      zone = content;
    } else {
      checkTag(input, suffix, tag[1] ?? "", tag[2] ?? "", critical === "!");
    }
    first = false;
  }
  return { text: match[1], zone };
}

/**
 * A calendar tag is honoured only when it names the ISO calendar: months or years counted in
 * another one would silently be Gregorian ones. Other tags are ignored unless critical, as
 * RFC 9557 section 3.3 asks.
 */
function checkTag(input: string, suffix: string, key: string, value: string, critical: boolean): void {
  const what = `the time ${JSON.stringify(input)}`;
  if (key === "u-ca" && !ISO_CALENDARS.has(value.toLowerCase())) {
    throw new SkillError(
      `The calendar ${suffix} in ${what} is not supported: dates are computed in the ISO 8601 (Gregorian) ` +
        "calendar; remove the annotation or write [u-ca=iso8601]",
    );
  }
  if (critical && key !== "u-ca") {
    throw new SkillError(
      `The critical annotation ${suffix} in ${what} is not one these skills know: remove it, or drop its "!" ` +
        "to have it ignored",
    );
  }
}
