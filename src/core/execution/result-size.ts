/**
 * The largest result a record keeps, in bytes of JSON (about; strings count by length).
 * A skill's output can be far larger than its input (a JMESPath expression of 150 bytes
 * can select 2^28 copies of its document), and a record that big cannot be stored or
 * sent: it fails instead, with a message saying to ask for less.
 */
export const MAX_RESULT_BYTES = 8 * 1024 * 1024;

/**
 * Whether `value` would take more than `maxBytes` of JSON. Walks the value and stops as
 * soon as the count passes `maxBytes`, so it costs at most that much work whatever the
 * value's real size: a result whose parts are shared (a structured clone keeps sharing)
 * is never expanded in full, as `JSON.stringify` would do.
 */
export function exceedsJsonSize(value: unknown, maxBytes: number): boolean {
  let budget = maxBytes;
  const visit = (node: unknown): boolean => {
    if (typeof node === "string") budget -= node.length + 2;
    else if (node === null || typeof node !== "object") budget -= 8;
    else {
      budget -= 2;
      if (Array.isArray(node)) {
        for (const item of node) if (budget < 0 || visit(item)) return true;
      } else {
        for (const key in node) {
          if (!Object.hasOwn(node, key)) continue;
          budget -= key.length + 4;
          if (budget < 0 || visit((node as Record<string, unknown>)[key])) return true;
        }
      }
    }
    return budget < 0;
  };
  return visit(value);
}
