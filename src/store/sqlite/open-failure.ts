import { statSync } from "node:fs";
import { NewerSchemaError } from "../schema-migration.js";
import { Database } from "./driver.js";

/** Where the database file came from, for the messages below. */
export interface StoreFilePlace {
  /** The database file. */
  filePath: string;
  /** The setting that chose its directory (e.g. `SKILLPORT_DATA_DIR or --data-dir`), if any. */
  dataDirSetting?: string;
}

const BACKUP_HINT = 'docs/deploy.md, "Backups"';
const PERMISSIONS_HINT =
  "check the owner and mode of the file and of its directory, and that the filesystem is not mounted read-only";

/**
 * SQLITE_IOERR_SHORT_READ at open: the WAL is shorter than the shared-memory index beside
 * it says, which is what a `skillport.db-wal` deleted (or replaced) while another process
 * had it open leaves; a failing disk reads short too.
 */
const SHORT_READ_HINT =
  "the WAL file beside the database (skillport.db-wal) does not match it, most likely deleted or replaced while another skillport process had it open: stop every skillport process on this data directory and start again (the last one to stop writes its data back); if none was running, the disk may be failing";

/**
 * The SQLite store at `place` and why it cannot be used, in one line with what to do:
 * `the SQLite store /srv/data/skillport.db (data directory from
 * SKILLPORT_DATA_DIR or --data-dir): file is not a database [SQLITE_NOTADB]; …`. Undefined
 * for an error that says nothing about the file (its caller then tells it as it is).
 */
export function describeStoreFailure(err: unknown, place: StoreFilePlace): string | undefined {
  const hint = storeFailureHint(err, place);
  if (hint === undefined) return undefined;
  return `${storeName(place)}: ${reasonOf(err)}; ${hint}`;
}

/** The file and the setting that chose it, e.g. for an error no hint covers. */
export function storeName({ filePath, dataDirSetting }: StoreFilePlace): string {
  const setting = dataDirSetting === undefined ? "" : ` (data directory from ${dataDirSetting})`;
  return `the SQLite store ${filePath}${setting}`;
}

/** The driver's or the system's message with its code, on one line. */
export function reasonOf(err: unknown): string {
  const message = (err instanceof Error ? err.message : String(err))
    .replace(/\s+/g, " ")
    .trim()
    .replace(/\.$/, "");
  const code = err instanceof Database.SqliteError ? err.code : undefined;
  return code === undefined ? message : `${message} [${code}]`;
}

/** What the operator can do about a failure of the store's file, or undefined if it is none. */
function storeFailureHint(err: unknown, { filePath, dataDirSetting }: StoreFilePlace): string | undefined {
  if (err instanceof NewerSchemaError) {
    return `a newer skillport wrote it: run that version, or restore a backup made by this one (${BACKUP_HINT})`;
  }
  // Before its primary code's hint: a short read at open is rarely a full disk.
  if (err instanceof Database.SqliteError && err.code === "SQLITE_IOERR_SHORT_READ") return SHORT_READ_HINT;
  switch (failureCode(err)) {
    case "SQLITE_CANTOPEN":
      if (isDirectory(filePath)) {
        return "a directory stands where the database file should be: move it away, or choose another data directory";
      }
      return PERMISSIONS_HINT;
    case "SQLITE_READONLY":
    case "SQLITE_PERM":
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return PERMISSIONS_HINT;
    case "SQLITE_FULL":
    case "SQLITE_IOERR":
    case "ENOSPC":
    case "EDQUOT":
      return "the disk is probably full (or failing): free some space and start again";
    case "SQLITE_NOTADB":
    case "SQLITE_CORRUPT":
      return `it is not a skillport database, or it is damaged: restore a backup (${BACKUP_HINT})`;
    case "ENOTDIR":
      return `a file stands where the data directory (or one of its parents) should be: point ${dataDirSetting ?? "the data directory"} at a directory`;
    default:
      return undefined;
  }
}

/**
 * SQLite's primary code (`SQLITE_IOERR` for `SQLITE_IOERR_WRITE`), or the system's errno
 * code (`EACCES`), of `err`.
 */
function failureCode(err: unknown): string | undefined {
  if (err instanceof Database.SqliteError) return /^SQLITE_[A-Z]+/.exec(err.code)?.[0];
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
