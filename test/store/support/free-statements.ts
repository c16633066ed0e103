/**
 * Prepares and drops statements while the event loop runs, so the garbage collector frees
 * many of them, some from its own tasks outside any JavaScript call. Prints "done" and
 * exits 0, unless the driver aborts the process as better-sqlite3 12 does on Node 24.19+
 * (see src/store/sqlite/driver.ts). Run with `node --import tsx`.
 */
import { Database } from "../../../src/store/sqlite/driver.js";

const db = new Database(":memory:");
let rounds = 0;
const timer = setInterval(() => {
  for (let i = 0; i < 200; i++) {
    db.prepare("select ? as x").get(i);
    // Garbage beside the statements, so collections come often.
    new Array(1000).fill({ i });
  }
  if (++rounds === 300) {
    clearInterval(timer);
    db.close();
    console.log("done");
  }
}, 5);
