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
/** Luxon's localized-time macros; in .NET's formats "tt" is AM/PM. */
const TIME_MACROS = new Set(["t", "tt", "ttt", "tttt", "T", "TT", "TTT", "TTTT"]);
/** Time fields: next to one of them, a time macro prints the time a second time. */
const TIME_FIELDS = /^(?:h+|H+|m+|s+|a)$/;
/** Luxon's localized date-and-time macros. */
const DATE_TIME_MACROS = new Set(["f", "ff", "fff", "ffff", "F", "FF", "FFF", "FFFF"]);
/** Every macro: a whole localized date, time or date-time. */
const MACROS = new Set([...DATE_MACROS, ...TIME_MACROS, ...DATE_TIME_MACROS]);
/** The fields AM/PM (a) may follow without a space: "ha" is 1PM, "h:mma" 1:05PM. */
const TIME_OF_DAY = /^(?:h+|H+|m+|s+)$/;

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

/** The runs of letters outside quotes with nothing between them, as Luxon reads them: tokens side by side. */
function unquotedWords(format: string): string[] {
  return format
    .split("'")
    .filter((_, index) => index % 2 === 0)
    .flatMap((text) => text.match(/[A-Za-z]+/g) ?? []);
}

/** `word` split as Luxon splits it: each run of one repeated letter is a token. */
function tokensOf(word: string): string[] {
  return word.match(/([A-Za-z])\1*/g) ?? [];
}

/** The unit a field token counts, by its letter: fields written together name each unit once. */
const FIELD_UNITS: Record<string, string> = {
  y: "year",
  M: "month",
  L: "month",
  d: "day",
  h: "hour",
  H: "hour",
  m: "minute",
  s: "second",
  S: "fraction",
  c: "weekday",
  E: "weekday",
};

/**
 * The tokens, by index, that Luxon reads where letters written together were meant otherwise.
 * Fields written without separators are sound (yyyyMMdd, HHmmss, ddMMMyyyy, and AM/PM after a
 * time field: ha, h:mma); a word is not, since each of its letters is a token of its own: "at"
 * is AM/PM then the localized time ("PM1:05 PM"), "on" and "Sat" print numbers. So these are
 * flagged: a macro (a whole localized date or time, which nothing written against it reads as
 * meant: the ISO "ddTHH" printed "2513:05"), AM/PM anywhere but after a time field ("am"), two
 * one-letter tokens side by side, which is what words are made of and no field layout needs,
 * and a unit named twice (the French "HHhmm", 13h05, printed "13105").
 */
function misreadTokens(tokens: string[]): number[] {
  if (tokens.length < 2) return [];
  const flagged = new Set<number>();
  const units = new Set<string>();
  tokens.forEach((token, index) => {
    const previous = tokens[index - 1];
    const amPmAfterTime = token === "a" && previous !== undefined && TIME_OF_DAY.test(previous);
    if (MACROS.has(token) || (token === "a" && !amPmAfterTime)) flagged.add(index);
    if (previous?.length === 1 && token.length === 1 && !amPmAfterTime) flagged.add(index - 1).add(index);
    const unit = FIELD_UNITS[token.charAt(0)];
    if (unit !== undefined && units.has(unit)) flagged.add(index);
    if (unit !== undefined) units.add(unit);
  });
  return [...flagged];
}

/** Why Luxon misreads a word of the format, with the word written with its text quoted; undefined if it does not. */
function misreadWord(word: string): string | undefined {
  const tokens = tokensOf(word);
  const flagged = misreadTokens(tokens);
  if (flagged.length === 0) return undefined;
  const [first, last] = [Math.min(...flagged), Math.max(...flagged) + 1];
  const quoted = `${tokens.slice(0, first).join("")}'${tokens.slice(first, last).join("")}'${tokens.slice(last).join("")}`;
  const named = tokens.map((token) => `"${token}"`).join(", ");
  return (
    `Luxon reads "${word}" as the tokens ${named} side by side, not as text: put literal text in single ` +
    `quotes, as ${quoted}`
  );
}

/**
 * Refuses a `toFormat` pattern that Luxon would print as garbage: a strftime `%`, a run of
 * letters outside quotes that is no Luxon token (moment's YYYY, A, dddd), a word outside quotes
 * made of tokens ("at", see `misreadWord`), or a macro beside the fields it already prints
 * (moment's "MM-DD", where Luxon's DD is "May 1, 2024"; .NET's AM/PM "hh:mm tt", where Luxon's
 * tt is "1:05:09 PM").
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
  // Before words: moment's "yyyyMMDD" wants this answer rather than quotes.
  const macro = runs.find((run) => DATE_MACROS.has(run));
  if (macro !== undefined && runs.some((run) => DATE_FIELDS.test(run))) {
    refuse(`"${macro}" is Luxon's localized date (such as May 1, 2024), not the day of the month (dd)`);
  }
  const misread = unquotedWords(format)
    .map(misreadWord)
    .find((why) => why !== undefined);
  if (misread !== undefined) refuse(misread);
  const timeMacro = runs.find((run) => TIME_MACROS.has(run));
  if (timeMacro !== undefined && runs.some((run) => TIME_FIELDS.test(run))) {
    refuse(
      `"${timeMacro}" is Luxon's localized time (such as 1:05 PM or 13:05:09), which repeats the time written ` +
        `beside it${timeMacro.startsWith("t") ? "; AM/PM is a" : ""}`,
    );
  }
  const dateTimeMacro = runs.find((run) => DATE_TIME_MACROS.has(run));
  if (dateTimeMacro !== undefined && runs.some((run) => DATE_FIELDS.test(run) || TIME_FIELDS.test(run))) {
    refuse(
      `"${dateTimeMacro}" is Luxon's localized date and time (such as 5/1/2024, 1:05 PM), which repeats the ` +
        "fields written beside it",
    );
  }
}
