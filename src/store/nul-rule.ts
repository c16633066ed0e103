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
 * dashboard, CLI, skills) goes through it.
 */
export function withNulRule<S extends Store>(store: S): S {
  const { keys, executions, messages, memory, learnedQueries } = store;
  return {
    ...store,
    keys: override(keys, {
      findById: (id) => (hasNul(id) ? Promise.resolve(undefined) : keys.findById(id)),
      revoke: (id, at) => (hasNul(id) ? Promise.resolve(false) : keys.revoke(id, at)),
      expire: (id, at) => (hasNul(id) ? Promise.resolve(false) : keys.expire(id, at)),
      update: (id, changes) => (hasNul(id) ? Promise.resolve(false) : keys.update(id, changes)),
    }),
    executions: override(executions, {
      get: (id) => (hasNul(id) ? Promise.resolve(undefined) : executions.get(id)),
      list: (query) => (queryHasNul(query) ? Promise.resolve([]) : executions.list(query)),
      listResultSizes: (query) =>
        queryHasNul(query) ? Promise.resolve([]) : executions.listResultSizes(query),
    }),
    messages: override(messages, {
      list: (owner, options) =>
        hasNul(owner, options.channel, options.before) ? Promise.resolve([]) : messages.list(owner, options),
    }),
    memory: override(memory, {
      get: (owner, key) => (hasNul(owner, key) ? Promise.resolve(undefined) : memory.get(owner, key)),
      delete: (owner, key) => (hasNul(owner, key) ? Promise.resolve(false) : memory.delete(owner, key)),
      list: (owner, options) =>
        hasNul(owner, options.prefix, options.after) ? Promise.resolve([]) : memory.list(owner, options),
    }),
    learnedQueries: override(learnedQueries, {
      noteDiscovers: (notes) =>
        learnedQueries.noteDiscovers(
          notes.map((note) =>
            hasNul(note.query) ? { ...note, query: note.query.replaceAll(NUL, "") } : note,
          ),
        ),
      lastDiscover: (keyId) =>
        hasNul(keyId) ? Promise.resolve(undefined) : learnedQueries.lastDiscover(keyId),
    }),
  };
}

function hasNul(...texts: (string | undefined)[]): boolean {
  return texts.some((text) => text?.includes(NUL));
}

function queryHasNul(query: ExecutionListQuery): boolean {
  return hasNul(query.owner, query.keyId, query.status, query.skillId, query.after, query.startAt);
}

/**
 * `target` with some methods replaced; the others are `target`'s own, called on it (the
 * adapters are class instances: a spread would lose their prototype's methods). What is
 * set or defined on the result (a test's spy) lands on the result, never on `target`:
 * the replacements call `target`'s methods and must keep reaching the adapter's own.
 */
function override<T extends object>(target: T, methods: Partial<T>): T {
  const own = new Map<PropertyKey, unknown>(Object.entries(methods));
  // Bound once per method, not on every call: the store is on every request's path.
  const bound = new Map<PropertyKey, { method: unknown; call: unknown }>();
  const proxy: T = new Proxy(target, {
    get(object, property) {
      if (own.has(property)) return own.get(property);
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== "function") return value;
      let entry = bound.get(property);
      if (entry?.method !== value) {
        entry = { method: value, call: value.bind(object) };
        bound.set(property, entry);
      }
      return entry.call;
    },
    set(_object, property, value, receiver) {
      // An object made with the result as its prototype keeps what is set on it.
      if (receiver !== proxy) {
        return Reflect.defineProperty(receiver as object, property, {
          value,
          writable: true,
          enumerable: true,
          configurable: true,
        });
      }
      own.set(property, value);
      return true;
    },
    defineProperty(_object, property, descriptor) {
      own.set(property, descriptor.value ?? descriptor.get?.());
      return true;
    },
    deleteProperty(_object, property) {
      own.delete(property);
      return true;
    },
  });
  return proxy;
}
