import { mkdirSync, rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { NewerSchemaError } from "../../src/store/schema-migration.js";
import { Database } from "../../src/store/sqlite/driver.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { describeStoreFailure } from "../../src/store/sqlite/open-failure.js";

const PLACE = { filePath: "/srv/skillport/skillport.db", dataDirSetting: "SKILLPORT_DATA_DIR or --data-dir" };
const STORE =
  "the SQLite store /srv/skillport/skillport.db (data directory from SKILLPORT_DATA_DIR or --data-dir)";
const PERMISSIONS =
  "check the owner and mode of the file and of its directory, and that the filesystem is not mounted read-only";
const DISK_FULL = "the disk is probably full (or failing): free some space and start again";
const DAMAGED =
  'it is not a skillport database, or it is damaged: restore a backup (docs/deploy.md, "Backups")';

function errno(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/**
 * Audit 22, operations #2: the failures the contract tests cannot cause as root (a read-only
 * file or filesystem, a full disk) get the same one line, by their SQLite or errno code.
 */
describe("sqlite: why a store cannot be opened, and what to do", () => {
  it.each([
    [new Database.SqliteError("attempt to write a readonly database", "SQLITE_READONLY"), PERMISSIONS],
    [
      new Database.SqliteError("attempt to write a readonly database", "SQLITE_READONLY_DBMOVED"),
      PERMISSIONS,
    ],
    [errno("EACCES", "EACCES: permission denied, open '/srv/skillport/skillport.db'"), PERMISSIONS],
    [errno("EROFS", "EROFS: read-only file system, mkdir '/srv/skillport'"), PERMISSIONS],
    [new Database.SqliteError("database or disk is full", "SQLITE_FULL"), DISK_FULL],
    [new Database.SqliteError("disk I/O error", "SQLITE_IOERR_WRITE"), DISK_FULL],
    [errno("ENOSPC", "ENOSPC: no space left on device, open '/srv/skillport/skillport.db'"), DISK_FULL],
    [new Database.SqliteError("database disk image is malformed", "SQLITE_CORRUPT"), DAMAGED],
    [new Database.SqliteError("file is not a database", "SQLITE_NOTADB"), DAMAGED],
  ])("names the file, the setting, the reason and a hint: %s", (err, hint) => {
    expect(describeStoreFailure(err, PLACE)).toMatch(
      new RegExp(`^${escapeRegExp(STORE)}: .+; ${escapeRegExp(hint)}$`),
    );
  });

  it("says a file from a newer skillport needs that version or a backup of this one's", () => {
    expect(describeStoreFailure(new NewerSchemaError(9, 7), PLACE)).toBe(
      `${STORE}: The database schema is version 9, newer than this skillport knows (7); ` +
        'a newer skillport wrote it: run that version, or restore a backup made by this one (docs/deploy.md, "Backups")',
    );
  });

  // Audit 27, finding 2: a WAL deleted while another process wrote through it left the
  // shared-memory index counting frames the new WAL lacks; every other command then failed
  // SQLITE_IOERR_SHORT_READ at open and was told the disk was probably full.
  it("says a WAL that does not match its database (deleted while in use) is the likely cause of a short read", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "skillport-short-read-"));
    const file = join(dataDir, "skillport.db");
    const other = new Database(file);
    try {
      other.pragma("journal_mode = WAL");
      other.exec("create table t (k)");
      other.exec("insert into t values (1)");
      rmSync(`${file}-wal`);
      other.exec("insert into t values (2)");
      let message = "";
      try {
        await openSqliteStore({ dataDir }).close();
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toContain("[SQLITE_IOERR_SHORT_READ]");
      expect(message).toContain("deleted or replaced while another skillport process had it open");
      expect(message).not.toContain("probably full");
    } finally {
      other.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  // Found by the operations audit (session 39): a data directory on a read-only disk, its
  // database opening, was refused with a bare "EROFS: …, open '…skillport.db-keys'".
  it("refuses a store whose change-signal file cannot be opened in the words of the database's refusal", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "skillport-signal-"));
    try {
      await openSqliteStore({ dataDir }).close();
      rmSync(join(dataDir, "skillport.db-keys"));
      mkdirSync(join(dataDir, "skillport.db-keys"));
      expect(() => openSqliteStore({ dataDir })).toThrow(
        /^Cannot open the SQLite store .*skillport\.db: EISDIR: illegal operation on a directory, open '.*skillport\.db-keys'$/,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it("describes nothing for an error that says nothing about the file", () => {
    expect(describeStoreFailure(new Error("the skill host exited"), PLACE)).toBeUndefined();
    expect(
      describeStoreFailure(new Database.SqliteError("database is locked", "SQLITE_BUSY"), PLACE),
    ).toBeUndefined();
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
