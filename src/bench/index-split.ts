import Database from "better-sqlite3";
import { fig, round, type Figure } from "./measure.js";

/** One table's share of the index: its own b-tree and those of its indexes (or FTS5 shadow tables). */
export interface TableSize {
  table: string;
  size: Figure;
  share: Figure;
  /** Each b-tree of the table, largest first: the table's rows under its own name. */
  parts: { name: string; size: Figure }[];
}

export interface IndexSplit {
  tables: TableSize[];
  /** Pages on the free list (space a VACUUM would return). */
  free: Figure;
}

/** Suffixes of the shadow tables FTS5 keeps for a virtual table. */
const FTS5_SHADOWS = ["_data", "_idx", "_content", "_docsize", "_config"];
const MiB = 2 ** 20;

/**
 * Where an index's bytes go, by table: SQLite's dbstat virtual table sums the pages of every
 * b-tree, and each index (and each FTS5 shadow table) is counted under the table it serves, so
 * the report can say which part of the schema a size target hinges on.
 */
export function indexSplit(file: string): IndexSplit {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const schema = db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema").all() as {
      type: string;
      name: string;
      tbl_name: string;
      sql: string | null;
    }[];
    const virtual = schema
      .filter((r) => r.type === "table" && /^CREATE VIRTUAL TABLE/i.test(r.sql ?? ""))
      .map((r) => r.name);
    const owner = new Map<string, string>();
    for (const r of schema) {
      const vt = virtual.find((v) => FTS5_SHADOWS.some((s) => r.name === v + s));
      owner.set(r.name, vt ?? (r.type === "index" ? r.tbl_name : r.name));
    }
    // aggregate = TRUE: one row per b-tree, summed inside SQLite.
    const trees = db.prepare("SELECT name, pgsize FROM dbstat WHERE aggregate = TRUE").all() as {
      name: string;
      pgsize: number;
    }[];
    const pageSize = db.pragma("page_size", { simple: true }) as number;
    const freePages = db.pragma("freelist_count", { simple: true }) as number;
    const total = trees.reduce((a, t) => a + t.pgsize, 0) + freePages * pageSize;
    const byTable = new Map<string, { name: string; bytes: number }[]>();
    for (const t of trees) {
      const table = owner.get(t.name) ?? t.name;
      byTable.set(table, [...(byTable.get(table) ?? []), { name: t.name, bytes: t.pgsize }]);
    }
    const tables = [...byTable]
      .map(([table, parts]) => ({ table, parts, bytes: parts.reduce((a, p) => a + p.bytes, 0) }))
      .sort((a, b) => b.bytes - a.bytes)
      .map(({ table, parts, bytes }) => ({
        table,
        size: fig(round(bytes / MiB, 1), "MiB"),
        share: fig(round((bytes / Math.max(1, total)) * 100, 1), "%"),
        parts: parts
          .sort((a, b) => b.bytes - a.bytes)
          .map((p) => ({ name: p.name, size: fig(round(p.bytes / MiB, 1), "MiB") })),
      }));
    return { tables, free: fig(round((freePages * pageSize) / MiB, 1), "MiB") };
  } finally {
    db.close();
  }
}
