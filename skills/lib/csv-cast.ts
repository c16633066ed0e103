/**
 * How `csv.to_json` casts cells with `cast`: column by column, so a column is one type. A
 * column becomes numbers only when every non-empty cell in it is a number, and booleans only
 * when every one is true/false; otherwise all its cells stay text. Cast one cell at a time,
 * a ZIP column came back half numbers ("02134" and 10001), and a column of phone numbers
 * or codes lost what made them identifiers (+14155550123 became 14155550123, "1E5" 100000).
 */

const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
/** In any case: Excel and Google Sheets export TRUE/FALSE, pandas True/False. */
const BOOLEAN = /^(?:true|false)$/i;

export type Cell = string | number | boolean | null;
export type ColumnType = "number" | "boolean" | "text";
type CellKind = ColumnType | "empty";

/** Each column's type, from every row, so that max_rows does not change how a column reads. */
export function columnTypes(records: readonly (readonly string[])[], width: number): ColumnType[] {
  const kinds: (CellKind | undefined)[] = Array.from({ length: width }, () => undefined);
  for (const record of records) {
    for (let index = 0; index < width; index += 1) {
      const seen = kinds[index];
      if (seen === "text") continue;
      const kind = cellKind(record[index]);
      if (kind === "empty") continue;
      kinds[index] = seen === undefined || seen === kind ? kind : "text";
    }
  }
  return kinds.map((kind) => (kind === undefined || kind === "empty" ? "text" : kind));
}

/** A cell as its column's type reads it; an empty or missing cell is null. */
export function castCell(value: string | undefined, type: ColumnType): Cell {
  if (value === undefined || value === "") return null;
  if (type === "number") return Number(value.trim());
  if (type === "boolean") return value.toLowerCase() === "true";
  return value;
}

function cellKind(value: string | undefined): CellKind {
  if (value === undefined || value === "") return "empty";
  if (BOOLEAN.test(value)) return "boolean";
  const text = value.trim();
  if (!NUMBER.test(text) || identifier(text)) return "text";
  return Number.isFinite(Number(text)) ? "number" : "text";
}

/**
 * Written like a number, but an identifier that a number would change: a leading + (a phone
 * number in E.164, +14155550123), a leading zero (a ZIP code, 02134; an agent number, 007)
 * or an integer beyond 2^53 - 1 (an order or card number, which a double rounds). A number
 * written with an exponent (6.02e23, 1e308) reads as one in a column of numbers; next to a
 * code that stays text ("1E5" beside "007"), the column's rule keeps it text too.
 */
function identifier(text: string): boolean {
  if (text.startsWith("+") || /^-?0\d/.test(text)) return true;
  const number = Number(text);
  return !/[eE]/.test(text) && Number.isInteger(number) && Math.abs(number) > Number.MAX_SAFE_INTEGER;
}
