import { existsSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";

/**
 * A freshly created SQLite database for bulk generation: WAL journal, synchronous=OFF while writing,
 * prepared statements, and one transaction per `batchRows` rows. `close()` commits, restores
 * synchronous=NORMAL and closes cleanly; the database stays in WAL mode.
 */
export class BatchedDb {
  readonly db: Database.Database;
  private rows = 0;
  private inTx = false;

  constructor(
    readonly file: string,
    ddl: readonly string[],
    private readonly batchRows = 5000,
    pragmas: readonly string[] = [],
  ) {
    mkdirSync(path.dirname(file), { recursive: true });
    for (const suffix of ["", "-wal", "-shm", "-journal"])
      if (existsSync(file + suffix)) rmSync(file + suffix);
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = OFF");
    this.db.pragma("cache_size = -16384");
    for (const p of pragmas) this.db.pragma(p);
    this.db.exec("BEGIN");
    for (const stmt of ddl) this.db.exec(stmt);
    this.db.exec("COMMIT");
  }

  prepare(sql: string): Database.Statement {
    return this.db.prepare(sql);
  }

  /** Runs a prepared insert inside the current batch transaction. */
  run(stmt: Database.Statement, params: unknown): Database.RunResult {
    if (!this.inTx) {
      this.db.exec("BEGIN");
      this.inTx = true;
    }
    const r = stmt.run(params);
    if (++this.rows % this.batchRows === 0) this.commit();
    return r;
  }

  commit(): void {
    if (this.inTx) {
      this.db.exec("COMMIT");
      this.inTx = false;
    }
  }

  close(): void {
    this.commit();
    this.db.pragma("synchronous = NORMAL");
    this.db.close();
  }
}
