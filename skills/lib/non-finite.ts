/** Nodes a search visits at most: a result JSON can carry holds fewer (see MAX_RESULT_BYTES). */
const MAX_VISITED_NODES = 5_000_000;

/**
 * Where `value` holds a number JSON cannot carry (Infinity, -Infinity or NaN), as a path
 * from `result` (`result.totals[2]`), with the number; undefined when it holds none. A
 * value whose parts are shared, such as a JMESPath projection of one object many times,
 * could be far larger walked in full than in memory: the search gives up after
 * `MAX_VISITED_NODES` nodes, leaving the execution's own result check to judge it.
 */
export function nonFiniteNumber(value: unknown): { path: string; number: number } | undefined {
  let visited = 0;
  const visit = (node: unknown, path: string): { path: string; number: number } | undefined => {
    if (++visited > MAX_VISITED_NODES) return undefined;
    if (typeof node === "number") return Number.isFinite(node) ? undefined : { path, number: node };
    if (node === null || typeof node !== "object") return undefined;
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        const found = visit(node[index], `${path}[${index}]`);
        if (found !== undefined || visited > MAX_VISITED_NODES) return found;
      }
      return undefined;
    }
    for (const [key, member] of Object.entries(node)) {
      const found = visit(
        member,
        /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`,
      );
      if (found !== undefined || visited > MAX_VISITED_NODES) return found;
    }
    return undefined;
  };
  return visit(value, "result");
}
