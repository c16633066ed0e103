/**
 * The JSON text a `MemoryStore` keeps for a value, in every adapter. `JSON.stringify` of
 * `undefined` (or of a function) is `undefined`: such a value is refused rather than
 * stored as something that is not JSON.
 */
export function memoryValueJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError("A memory value must be representable as JSON.");
  return json;
}
