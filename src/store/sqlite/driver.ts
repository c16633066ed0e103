import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

/*
 * better-sqlite3 has no release that is safe on every Node version skillport supports, so
 * two are installed and this module loads the one that fits the running Node:
 *
 * - 13 (`better-sqlite3`) is built on Node-API 10. Node 20 does not have Node-API 10, and
 *   loading 13 there crashes the process (a segfault in `new Database()`,
 *   WiseLibs/better-sqlite3#1514).
 * - 12 (`better-sqlite3-node20`, an npm alias) derives its objects from `node::ObjectWrap`.
 *   Compiled against the headers of Node 24.19 or later, its destructor aborts the process
 *   when the garbage collector frees a statement outside JavaScript (nodejs/node#65446).
 *
 * So 13 runs wherever Node has Node-API 10 (Node 22.14 and later, every Node 24), and 12
 * runs on Node 20 and early 22. Their APIs are the same for everything skillport uses.
 * 12 is an optional dependency, so that its compile step (when no prebuilt binary can be
 * downloaded) cannot fail an install on a Node that does not need it.
 */
/** better-sqlite3's types, the same for both releases: import them from here too. */
export type { BetterSqlite3 };

export const DRIVER_PACKAGE =
  Number(process.versions.napi) >= 10 ? "better-sqlite3" : "better-sqlite3-node20";

/** The `Database` class of the driver for this Node (see above). */
export const Database: typeof BetterSqlite3 = loadDriver();

function loadDriver(): typeof BetterSqlite3 {
  try {
    return createRequire(import.meta.url)(DRIVER_PACKAGE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND") throw err;
    throw new Error(
      `${DRIVER_PACKAGE}, the SQLite driver for Node ${process.versions.node}, is not installed: ` +
        "run npm install again with this Node (it compiles when no prebuilt binary can be downloaded, " +
        "which needs python3, make and a C++ compiler: on Debian, apt-get install python3 make g++).",
      { cause: err },
    );
  }
}
