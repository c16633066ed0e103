import type { ExecutionListQuery, Store } from "../core/ports.js";

const NUL = "\u0000";

/**
 * One rule for U+0000 (NUL), the same whichever store, so that a client gets the same
 * answer from the embedded SQLite store and from PostgreSQL (whose `text` cannot hold
 * NUL at all: SQLSTATE 22021, which would be a 500 there and a normal answer here; audit
 * 21 #3). Nothing stored holds NUL: ids are generated, skill ids come from the registry,
 * and the text a skill stores refuses it (`skills/lib/text-guards.ts`, invalid_params).
 * So an id, a filter or a cursor containing NUL matches nothing, answered without asking
 * the store: `404` for an id as for any unknown one, an empty list for a filter. A
 * discover's query is kept for learning with its NULs removed (it is search text; the
 * note must not be lost over them).
 *
 * Applied by each adapter's `open` to what it returns, so that every surface (REST, MCP,
 * dashboard, CLI, skills) goes through it. The guarded methods are replaced on the
 * adapters themselves, and the rest are left alone: a Proxy in front of each adapter cost
 * 8 % of an execute's CPU (bench/cpu-cost.mjs), the store being on every request's path.
 */
export function withNulRule<S extends Store>(store: S): S {
  const { keys, executions, messages, memory, learnedQueries } = store;
  guard(keys, "findById", (findById) => (id) => (hasNul(id) ? Promise.resolve(undefined) : findById(id)));
  guard(keys, "findByIds", (findByIds) => (ids) => findByIds(ids.filter((id) => !hasNul(id))));
  guard(keys, "revoke", (revoke) => (id, at) => (hasNul(id) ? Promise.resolve(false) : revoke(id, at)));
  guard(
    keys,
    "findReplacement",
    (findReplacement) => (id) => (hasNul(id) ? Promise.resolve(undefined) : findReplacement(id)),
  );
  guard(
    keys,
    "update",
    (update) => (id, changes) => (hasNul(id) ? Promise.resolve(false) : update(id, changes)),
  );
  guard(executions, "get", (get) => (id) => (hasNul(id) ? Promise.resolve(undefined) : get(id)));
  guard(executions, "list", (list) => (query) => (queryHasNul(query) ? Promise.resolve([]) : list(query)));
  guard(
    executions,
    "listResultSizes",
    (listResultSizes) => (query) => (queryHasNul(query) ? Promise.resolve([]) : listResultSizes(query)),
  );
  guard(
    messages,
    "list",
    (list) => (owner, options) =>
      hasNul(owner, options.channel, options.before) ? Promise.resolve([]) : list(owner, options),
  );
  guard(
    messages,
    "has",
    (has) => (owner, id) => (hasNul(owner, id) ? Promise.resolve(false) : has(owner, id)),
  );
  guard(
    memory,
    "get",
    (get) => (owner, key) => (hasNul(owner, key) ? Promise.resolve(undefined) : get(owner, key)),
  );
  guard(
    memory,
    "delete",
    (remove) => (owner, key) => (hasNul(owner, key) ? Promise.resolve(false) : remove(owner, key)),
  );
  guard(
    memory,
    "list",
    (list) => (owner, options) =>
      hasNul(owner, options.prefix, options.after) ? Promise.resolve([]) : list(owner, options),
  );
  guard(
    learnedQueries,
    "noteDiscovers",
    (noteDiscovers) => (notes) =>
      noteDiscovers(
        notes.map((note) => (hasNul(note.query) ? { ...note, query: note.query.replaceAll(NUL, "") } : note)),
      ),
  );
  // Not `lastDiscover`: its key id is one the store generated (never NUL), and it runs on
  // every execution, where even this guard's cost showed.
  return store;
}

function hasNul(...texts: (string | undefined)[]): boolean {
  return texts.some((text) => text?.includes(NUL));
}

function queryHasNul(query: ExecutionListQuery): boolean {
  return hasNul(query.owner, query.keyId, query.status, query.skillId, query.after, query.startAt);
}

type Method = (...args: never[]) => unknown;

/**
 * Replaces `target[name]` with what `replacement` makes of the original method (bound to
 * `target`, so the replacement never reaches itself). A test's spy set on the method later
 * wraps the replacement, and the replacement still calls the adapter's own method.
 */
function guard<T extends object, K extends keyof T>(
  target: T,
  name: K,
  replacement: (original: T[K]) => T[K],
): void {
  const original = (target[name] as Method).bind(target) as T[K];
  // A plain assignment: defining the property with other attributes can turn the adapter
  // into a slow dictionary object, and every property its methods read would pay for it.
  target[name] = replacement(original);
}
