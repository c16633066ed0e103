/**
 * The one Map key of a row whose primary key has several columns: JSON of the values, so
 * that no value, whatever characters it holds, can make two keys equal.
 */
export function tableKey(...columns: (string | number)[]): string {
  return JSON.stringify(columns);
}
