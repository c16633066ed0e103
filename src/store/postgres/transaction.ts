import type pg from "pg";

/**
 * Runs `work` in one transaction on a connection of `pool`: committed if it resolves,
 * rolled back if it throws (the error is rethrown), and the connection given back either way.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    const result = await work(client);
    await client.query("commit");
    return result;
  } catch (err) {
    await client.query("rollback").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
