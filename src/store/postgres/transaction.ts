import type pg from "pg";
import { isPostgresOutage } from "./outage.js";

/**
 * Runs `work` in one transaction on a connection of `pool`: committed if it resolves,
 * rolled back if it throws (the error is rethrown), and the connection given back either way.
 * A connection that failed (a query timed out, the server went away) is discarded, not
 * given back: after a `query_timeout` node-postgres still waits for the late answer, and
 * every later query on that connection would wait behind it (node-postgres issue #3399).
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query("begin");
    const result = await work(client);
    await client.query("commit");
    return result;
  } catch (err) {
    if (isPostgresOutage(err)) {
      // No rollback to wait for: the server ends the transaction when the connection goes.
      broken = err as Error;
    } else {
      await client.query("rollback").catch((rollbackFailed: unknown) => {
        broken = rollbackFailed instanceof Error ? rollbackFailed : new Error(String(rollbackFailed));
      });
    }
    throw err;
  } finally {
    client.release(broken);
  }
}
