import { join } from "node:path";
import { Database } from "../../src/store/sqlite/driver.js";
import { DEFAULT_DATABASE_FILE } from "../../src/store/sqlite/index.js";

/**
 * The statuses of every execution in the SQLite store of `dataDir`, sorted, read straight
 * from the file (no process needs to run on it, and none is started).
 */
export function executionStatuses(dataDir: string): string[] {
  const db = new Database(join(dataDir, DEFAULT_DATABASE_FILE), { readonly: true });
  try {
    return db.prepare("select status from executions order by status").pluck().all() as string[];
  } finally {
    db.close();
  }
}
