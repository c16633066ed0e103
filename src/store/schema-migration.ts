import type { Logger } from "../core/logger.js";

/** What bringing a store's schema up to date did at open. */
export interface SchemaMigration {
  /** The schema version the store is at now. */
  version: number;
  /** The migrations this open applied, in order (`6 usage_counts`); none when it was up to date. */
  applied: string[];
}

/**
 * The one line that says at start-up which migrations ran and the schema version the
 * store is at: an operator checks from the logs that a rolling
 * deploy changed the schema once, and which version every replica works with.
 */
export function logSchemaMigration(
  logger: Logger,
  store: "sqlite" | "postgresql",
  migration: SchemaMigration,
): void {
  logger.info(
    { store, schema_version: migration.version, migrations_applied: migration.applied },
    migration.applied.length === 0
      ? "the store's schema is up to date"
      : `applied ${migration.applied.length} schema migration${migration.applied.length === 1 ? "" : "s"}`,
  );
}
