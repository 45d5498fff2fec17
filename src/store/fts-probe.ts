import Database from "better-sqlite3";
import { RecallError } from "../core/errors.js";

export type Engine = "fts5" | "plain";

/** True when this SQLite build can create an FTS5 table (probed in a throwaway in-memory db). */
export function probeFts5(): boolean {
  const db = new Database(":memory:");
  try {
    db.exec(
      "CREATE VIRTUAL TABLE temp.recall_probe USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')",
    );
    db.prepare("INSERT INTO temp.recall_probe(body) VALUES (?)").run("probe");
    return (
      db.prepare("SELECT count(*) AS n FROM temp.recall_probe WHERE recall_probe MATCH 'probe'").get() !==
      undefined
    );
  } catch {
    return false;
  } finally {
    db.close();
  }
}

/**
 * The engine a NEW index gets: fts5 when the runtime has it, unless plain is forced
 * (RECALL_ENGINE=plain or --engine plain, used by tests). An existing index keeps the
 * engine recorded in its meta table.
 */
export function chooseEngine(forced: Engine | undefined, probe: () => boolean = probeFts5): Engine {
  if (forced === "plain") return "plain";
  const available = probe();
  if (forced === "fts5" && !available) {
    throw new RecallError("Unavailable", "FTS5 was requested but this SQLite build does not provide it");
  }
  return available ? "fts5" : "plain";
}
