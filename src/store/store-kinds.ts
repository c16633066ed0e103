import type { StoreConfig } from "../config.js";

/**
 * The stores skillport runs on, by the name the log gives them: the one place that knows
 * them. `label` is how messages name one, `urlPattern` the SKILLPORT_DATABASE_URL that
 * selects it. `openStore` opens each (its openers are a `Record<StoreKind, …>`, so tsc
 * names a kind it cannot open). Loads no adapter: config.ts and `skillport mcp` read it.
 * The in-memory store (`store/memory/`) is not one of them: it keeps nothing across a
 * restart, so only tests open it.
 */
export const STORE_KINDS = {
  /** The embedded file in SKILLPORT_DATA_DIR: the default, when no database URL is set. */
  sqlite: { label: "SQLite", urlPattern: undefined },
  /** Scale-out, with Redis counting the limits. */
  postgresql: { label: "PostgreSQL", urlPattern: /^postgres(ql)?:\/\// },
};

export type StoreKind = keyof typeof STORE_KINDS;

/** Why config.ts refuses a SKILLPORT_DATABASE_URL that no `urlPattern` matches. */
export const DATABASE_URL_RULE = "must be a postgres:// URL";

/** The kind a SKILLPORT_DATABASE_URL selects, if any. */
export function kindOfDatabaseUrl(url: string): StoreKind | undefined {
  return (Object.keys(STORE_KINDS) as StoreKind[]).find((kind) => STORE_KINDS[kind].urlPattern?.test(url));
}

/** The store the configuration names: the embedded one unless SKILLPORT_DATABASE_URL selects another. */
export function storeKindOf({ databaseUrl }: Pick<StoreConfig, "databaseUrl">): StoreKind {
  if (databaseUrl === undefined) return "sqlite";
  const kind = kindOfDatabaseUrl(databaseUrl);
  if (kind === undefined) throw new Error(`SKILLPORT_DATABASE_URL ${DATABASE_URL_RULE}`);
  return kind;
}
