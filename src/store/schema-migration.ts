import type { Logger } from "../core/logger.js";

/** One schema change; `version` numbers are consecutive from 1 and never reused. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** A database written by a newer skillport, whose schema this code does not know. */
export class NewerSchemaError extends Error {
  constructor(
    readonly version: number,
    readonly knownVersion: number,
  ) {
    super(`The database schema is version ${version}, newer than this skillport knows (${knownVersion}).`);
    this.name = "NewerSchemaError";
  }
}

/** Refuses a list of migrations whose versions are not 1, 2, 3…, before any is applied. */
export function checkSequence(migrations: readonly Migration[]): void {
  for (const [i, migration] of migrations.entries()) {
    if (migration.version !== i + 1) throw new Error(`Migration ${migration.name} is out of sequence.`);
  }
}

/**
 * The migrations a schema at version `current` still needs, in order. A schema newer than
 * `migrations` know is refused (`NewerSchemaError`) rather than used with a schema this
 * code does not know.
 */
export function pendingMigrations(migrations: readonly Migration[], current: number): Migration[] {
  if (current > migrations.length) throw new NewerSchemaError(current, migrations.length);
  return migrations.filter((migration) => migration.version > current);
}

/** What applying `pending` did: the schema is at the latest of `migrations`. */
export function schemaMigrated(
  migrations: readonly Migration[],
  pending: readonly Migration[],
): SchemaMigration {
  return {
    version: migrations.length,
    applied: pending.map((migration) => `${migration.version} ${migration.name}`),
  };
}

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
