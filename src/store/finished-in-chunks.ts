import { idFloor } from "../core/ids.js";

/**
 * Records deleted per statement by retention: SQLite lets other writers take the lock
 * between chunks, and no PostgreSQL statement holds many row locks.
 */
export const DELETE_CHUNK = 1000;

/**
 * Deletes the terminal records finished before `finishedBefore`, a chunk at a time:
 * `deleteChunk` deletes up to `DELETE_CHUNK` of those with an id below `idFloor` and says
 * how many. A record finished before the cutoff was created before it too, so its id is
 * below the cutoff's floor: each chunk is a range of the primary key, not a scan of the
 * whole table. Returns how many were deleted.
 */
export async function deleteFinishedInChunks(
  finishedBefore: string,
  deleteChunk: (idFloor: string, finishedBefore: string) => number | Promise<number>,
): Promise<number> {
  const floor = idFloor("exec", Date.parse(finishedBefore));
  let deleted = 0;
  for (;;) {
    const count = await deleteChunk(floor, finishedBefore);
    deleted += count;
    if (count < DELETE_CHUNK) return deleted;
  }
}
