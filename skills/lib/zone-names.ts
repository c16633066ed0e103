/** Each IANA name ICU lists (Intl.supportedValuesOf), by its lower-case spelling; read on first use. */
let listedNames: Map<string, string> | undefined;

function listedName(zone: string): string | undefined {
  listedNames ??= new Map(Intl.supportedValuesOf("timeZone").map((name) => [name.toLowerCase(), name]));
  return listedNames.get(zone.toLowerCase());
}

/** The name ICU gives the zone: the canonical one, whatever the case or alias; undefined if ICU knows none. */
function icuName(zone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/**
 * An IANA zone name as the tz database spells it ("europe/paris" is Europe/Paris). ICU and
 * Luxon read names in any case, and Luxon keeps the name as written, so a result named the zone
 * "europe/paris" (while "utc" became UTC). The spelling is ICU's, from its list of zones or its
 * own name for the zone. ICU lists no aliases, and calls some zones by older names (the ICU of
 * Node 20 lists Asia/Calcutta, not Asia/Kolkata): such a name written in mixed case is kept as the
 * caller chose it; one in a single case, which is no spelling of the database, becomes ICU's name
 * for the zone ("us/eastern" is America/New_York).
 */
export function ianaSpelling(zone: string): string {
  const listed = listedName(zone);
  if (listed !== undefined) return listed;
  const named = icuName(zone);
  if (named === undefined) return zone;
  const mixedCase = zone !== zone.toLowerCase() && zone !== zone.toUpperCase();
  return mixedCase && named.toLowerCase() !== zone.toLowerCase() ? zone : named;
}

/** The zone's canonical IANA name, which ICU gives whatever the case or alias; a fixed offset's own name. */
export function zoneIdentity(zone: string): string {
  return icuName(zone) ?? zone;
}
