import { z } from "zod";
import { defineSkill, SkillError } from "../src/core/skills/skill.js";
import { type Cell, castCell, columnTypes } from "./lib/csv-cast.js";
import { errorMessage } from "./lib/errors.js";
import { lazy } from "./lib/lazy.js";
import { MAX_TEXT_CHARACTERS, TEXT_SIZE_NOTE } from "./lib/text-limits.js";

const loadCsvParse = lazy(() => import("csv-parse/sync"));
const DELIMITERS = [",", ";", "\t", "|"] as const;

export const csvToJson = defineSkill({
  id: "csv.to_json",
  title: "Parse CSV into JSON",
  description:
    "Parses CSV (or TSV, semicolon- or pipe-separated) text into JSON rows: objects keyed by the header row, or arrays " +
    "when there is no header. Returns rows, columns and row_count; optional type casting of numbers and booleans. " +
    "Use it to read spreadsheet exports and tabular data before filtering or summarising them.",
  tags: ["csv", "tsv", "parse", "json", "table", "spreadsheet", "convert", "data"],
  params: z.object({
    csv: z
      .string()
      .min(1)
      .max(MAX_TEXT_CHARACTERS)
      .describe(`The CSV text, including the header row when \`header\` is true. ${TEXT_SIZE_NOTE}`),
    delimiter: z
      .enum(["auto", ",", ";", "\t", "|"])
      .default("auto")
      .describe(
        "Field separator; auto picks the most frequent of , ; tab | in the first record, outside quoted cells.",
      ),
    header: z.boolean().default(true).describe("Whether the first row holds column names."),
    cast: z
      .boolean()
      .default(false)
      .describe(
        "Cast each column as a whole: to numbers when every non-empty cell in it is a number, to booleans when " +
          "every one is true/false in any case (TRUE, True); empty cells become null. Any other cell keeps its " +
          "whole column text, as does one written like an identifier: a leading + (+14155550123), a leading " +
          "zero (02134) or an integer beyond 9007199254740991.",
      ),
    trim: z.boolean().default(false).describe("Trim whitespace around cells."),
    relax_column_count: z
      .boolean()
      .default(false)
      .describe(
        "Accept rows with a different number of cells than the header (the first row without one) instead of " +
          "failing: missing cells are null, cells beyond the header go to columns named after their position " +
          '("column_3"); without a header every row is padded with null to the widest row.',
      ),
    max_rows: z.number().int().min(1).max(100_000).default(10_000).describe("Return at most this many rows."),
  }),
  result: z.object({
    rows: z
      .array(z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]))
      .describe("Rows: objects keyed by column name with a header, arrays of cells without one."),
    columns: z
      .array(z.string())
      .describe(
        "Column names, all distinct: a repeated header name gets the first suffix no other column uses " +
          '("name_2", or "name_3" when the header already has a "name_2"), an empty one is named after its ' +
          'position ("column_3"), as are cells beyond the header in longer rows; column_1, column_2... ' +
          "without a header.",
      ),
    row_count: z.number().int().describe("Number of rows returned."),
    total_rows: z.number().int().describe("Number of data rows in the input."),
    truncated: z.boolean().describe("True when there were more than max_rows rows."),
    delimiter: z.string().describe("The delimiter used."),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  examples: [
    { query: "parse this CSV into JSON", params: { csv: "name,age\nAnn,34\nBob,25", cast: true } },
    {
      query: "read this semicolon separated export",
      params: { csv: "city;population\nLyon;522250", delimiter: ";" },
    },
    { query: "convert CSV rows without a header to arrays", params: { csv: "1,2,3\n4,5,6", header: false } },
  ],
  async warm() {
    await loadCsvParse();
  },
  async run(params) {
    const { parse } = await loadCsvParse();
    const delimiter = params.delimiter === "auto" ? detectDelimiter(params.csv) : params.delimiter;
    let records: string[][];
    try {
      records = parse(params.csv, {
        delimiter,
        bom: true,
        // Every line ending, in any mix: csv-parse otherwise takes the first one it meets for
        // the whole file, and a CRLF row after an LF header kept its "\r".
        record_delimiter: ["\r\n", "\n", "\r"],
        skip_empty_lines: true,
        trim: params.trim,
        relax_column_count: params.relax_column_count,
        // A single runaway quoted field must not grow without bound.
        max_record_size: 1_000_000,
      });
    } catch (err) {
      const hints: string[] = [];
      if (/RECORD_INCONSISTENT/.test(String((err as { code?: unknown }).code))) {
        hints.push("set relax_column_count to accept rows of different lengths");
      }
      // A wrong guess shows up as a quote or column error that does not mention the
      // delimiter, so the message says which one was used and how to choose another.
      if (params.delimiter === "auto") {
        hints.push(
          `detected delimiter ${JSON.stringify(delimiter)}: set delimiter if the data uses another one`,
        );
      }
      const hint = hints.length > 0 ? ` (${hints.join("; ")})` : "";
      throw new SkillError(`Invalid CSV: ${errorMessage(err)}${hint}`, { cause: err });
    }
    // A loop, not Math.max(...): one argument per row overflows the stack past ~100k rows.
    const width = records.reduce((widest, record) => Math.max(widest, record.length), 0);
    const headerRow = params.header ? (records.shift() ?? []) : [];
    // With relax_column_count a row may be longer than the header. Its extra cells are
    // data too: they get columns named like an empty header cell, after their position,
    // rather than being dropped without a word.
    const unnamed = Array.from({ length: width - headerRow.length }, () => "");
    const columns = params.header
      ? uniqueNames([...headerRow, ...unnamed])
      : Array.from({ length: width }, (_, index) => `column_${index + 1}`);
    const types = params.cast ? columnTypes(records, width) : [];
    const cell = (record: string[], index: number): Cell =>
      params.cast ? castCell(record[index], types[index] ?? "text") : (record[index] ?? null);
    const selected = records.slice(0, params.max_rows);
    const rows = params.header
      ? selected.map((record) =>
          Object.fromEntries(columns.map((name, index) => [name, cell(record, index)])),
        )
      : // Padded to the widest row as with a header: a missing cell is null, not absent.
        selected.map((record) => columns.map((_, index) => cell(record, index)));
    return {
      rows,
      columns,
      row_count: rows.length,
      total_rows: records.length,
      truncated: records.length > rows.length,
      delimiter,
    };
  },
});

/**
 * Counts each candidate in the first record, outside quoted cells: a quoted header such as
 * "Last, First";Age (what Excel writes in locales whose separator is ;) holds more commas
 * than semicolons, and counting them picked the wrong one. A quote toggles the quoted
 * state, so a doubled quote inside a cell toggles twice and changes nothing; a line break
 * inside quotes belongs to the cell, not the end of the record. A tie goes to the earlier
 * candidate in DELIMITERS.
 */
function detectDelimiter(csv: string): string {
  const counts = new Map<string, number>();
  let quoted = false;
  for (const char of csv) {
    if (char === '"') quoted = !quoted;
    else if (quoted) continue;
    else if (char === "\n" || char === "\r") break;
    else counts.set(char, (counts.get(char) ?? 0) + 1);
  }
  let best: string = ",";
  let bestCount = 0;
  for (const candidate of DELIMITERS) {
    const count = counts.get(candidate) ?? 0;
    if (count > bestCount) {
      best = candidate;
      bestCount = count;
    }
  }
  return best;
}

/**
 * Empty and repeated header names would collide as object keys, and a column whose key
 * collides loses its values. A name given in the header keeps it at its first occurrence;
 * a repeat gets the first suffix no column uses, so "a,a,a_2" gives a, a_3, a_2 rather
 * than two a_2 columns. An empty cell is named after its position, suffixed in turn if
 * the header gives that name too.
 */
function uniqueNames(header: string[]): string[] {
  const used = new Set(header.filter((raw) => raw.trim() !== ""));
  const kept = new Set<string>();
  // Where each base's suffix search resumes, so a header of thousands of repeats stays linear.
  const nextSuffix = new Map<string, number>();
  const suffixed = (base: string): string => {
    let suffix = nextSuffix.get(base) ?? 2;
    while (used.has(`${base}_${suffix}`)) suffix++;
    nextSuffix.set(base, suffix + 1);
    const name = `${base}_${suffix}`;
    used.add(name);
    return name;
  };
  return header.map((raw, index) => {
    if (raw.trim() === "") {
      const name = `column_${index + 1}`;
      if (used.has(name)) return suffixed(name);
      used.add(name);
      return name;
    }
    if (kept.has(raw)) return suffixed(raw);
    kept.add(raw);
    return raw;
  });
}
