import { SkillError } from "../../src/core/skills/skill.js";

/**
 * The tokens Luxon's `toFormat` knows (luxon 3, src/impl/formatter.js: the cases of
 * `tokenToString` and the macro tokens). Luxon prints any other run of letters as it is,
 * so a moment.js "YYYY-MM-DD hh:mm A" came back as "YYYY-05-May 1, 2024 12:00 A" and a
 * strftime "%Y-%m-%d" as "%Y-%0-%1", both without a word.
 */
const LUXON_TOKENS = new Set(
  [
    "S SSS u uu uuu s ss m mm h hh H HH Z ZZ ZZZ ZZZZ ZZZZZ z a d dd c ccc cccc ccccc",
    "E EEE EEEE EEEEE L LL LLL LLLL LLLLL M MM MMM MMMM MMMMM y yy yyyy yyyyyy G GG GGGGG",
    "kk kkkk W WW n nn ii iiii o ooo q qq X x",
    // Macros: a whole localized date, time or date-time.
    "D DD DDD DDDD t tt ttt tttt T TT TTT TTTT f ff fff ffff F FF FFF FFFF",
  ]
    .join(" ")
    .split(" "),
);

/** Luxon's localized-date macros, which moment.js uses for the day of the month. */
const DATE_MACROS = new Set(["D", "DD", "DDD", "DDDD"]);
/** Numeric date fields: next to one of them, a date macro is a moment.js day of the month. */
const DATE_FIELDS = /^(?:y+|M+|L+|d+)$/;

const LUXON_HINT =
  "use Luxon tokens, e.g. yyyy-MM-dd HH:mm (yyyy year, MM month, dd day, HH hour 00-23, hh hour 01-12, " +
  "mm minute, ss second, a AM/PM, cccc weekday, LLLL month name), with literal text in single quotes";

/**
 * Splits a format as Luxon's `Formatter.parseFormat` does: text in single quotes is
 * literal ('' is a quote), and outside quotes each run of one repeated character is a token.
 * `unclosed` says a quote opened literal text that no quote closed.
 */
function formatRuns(format: string): { runs: string[]; unclosed: boolean } {
  const runs: string[] = [];
  let quoted = false;
  let run = "";
  for (const char of format) {
    if (char === "'") {
      if (run !== "") runs.push(run);
      quoted = !quoted;
      run = "";
    } else if (!quoted) {
      if (run !== "" && char !== run[0]) runs.push(run);
      run = char === run[0] ? run + char : char;
    }
  }
  if (!quoted && run !== "") runs.push(run);
  return { runs, unclosed: quoted };
}

/**
 * Refuses a `toFormat` pattern that Luxon would print as garbage: a strftime `%`, or a
 * run of letters outside quotes that is no Luxon token (moment's YYYY, A, dddd), or a date
 * macro beside numeric date fields (moment's "MM-DD", where Luxon's DD is "May 1, 2024").
 */
export function checkLuxonFormat(format: string): void {
  const { runs, unclosed } = formatRuns(format);
  const refuse = (why: string): never => {
    throw new SkillError(`Invalid format ${JSON.stringify(format)}: ${why}; ${LUXON_HINT}`);
  };
  // Luxon prints the rest of the format after it as text without a word: "'" formatted as "",
  // "yyyy 'at HH:mm" as "2024 at HH:mm".
  if (unclosed) refuse("a ' opens literal text that no ' closes: close it");
  if (runs.some((run) => run.startsWith("%"))) refuse("% is strftime syntax, which Luxon does not use");
  const unknown = runs.find((run) => /^[A-Za-z]/.test(run) && !LUXON_TOKENS.has(run));
  if (unknown !== undefined) refuse(`"${unknown}" is not a Luxon token, and Luxon would print it unchanged`);
  const macro = runs.find((run) => DATE_MACROS.has(run));
  if (macro !== undefined && runs.some((run) => DATE_FIELDS.test(run))) {
    refuse(`"${macro}" is Luxon's localized date (such as May 1, 2024), not the day of the month (dd)`);
  }
}
