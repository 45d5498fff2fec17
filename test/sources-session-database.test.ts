/**
 * The SQLite session database base (sources/databases/session-database-source.ts) keeps the
 * source contract, on a toy agent whose sessions live in a WAL database.
 */
import { readFileSync, rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Env } from "../src/platform/paths.js";
import { searchHistory } from "../src/search/history.js";
import { openSourceRun, sourceContract } from "./helpers/source-contract.js";
import { openToySql, toySql, toySqlFile } from "./helpers/toy-sql-source.js";

const T = Date.UTC(2026, 5, 1);

function write(env: Env, extra?: (db: ReturnType<typeof openToySql>) => void) {
  const db = openToySql(env);
  const session = db.prepare("INSERT OR REPLACE INTO sessions (id, title, updated_at) VALUES (?, ?, ?)");
  const message = db.prepare(
    "INSERT OR REPLACE INTO messages (id, session_id, role, text, at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
  );
  session.run("s-a", "alpha", T);
  session.run("s-b", "beta", T);
  message.run("m1", "s-a", "user", "first ocelotword", T, T);
  message.run("m2", "s-a", "assistant", "then pangolinword", T + 1, T + 1);
  message.run("m3", "s-b", "user", "other quokkaword", T + 2, T + 2);
  extra?.(db);
  db.close();
}

sourceContract(toySql, {
  write: (env) => write(env),
  tokens: ["ocelotword", "pangolinword", "quokkaword"],
  forget: { session: "s-b", tokens: ["quokkaword"] },
  remove: (env) => {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(toySqlFile(env) + suffix, { force: true });
  },
  oversized: {
    write: (env) =>
      write(env, (db) =>
        db
          .prepare(
            "INSERT INTO messages (id, session_id, role, text, at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
          )
          .run("m4", "s-a", "user", `walrusword ${"lorem ipsum ".repeat(20_000)}`, T + 4, T + 4),
      ),
    token: "walrusword",
    bytes: 200_000,
    maxLineBytes: 64 * 1024,
  },
});

describe("a database its CLI holds open", () => {
  it("is read through its live WAL, which stays as it was (no checkpoint)", async () => {
    const run = await openSourceRun(toySql);
    run.restart();
    const { env, store } = run;
    const writer = openToySql(env);
    writer.pragma("wal_autocheckpoint = 0");
    try {
      writer.prepare("INSERT INTO sessions (id, title, updated_at) VALUES ('s-w', 'live', ?)").run(T);
      writer
        .prepare(
          "INSERT INTO messages (id, session_id, role, text, at, updated_at) VALUES ('w1', 's-w', 'user', 'live heronword', ?, ?)",
        )
        .run(T, T);
      const wal = readFileSync(`${toySqlFile(env)}-wal`);
      expect(wal.length).toBeGreaterThan(0);
      const index = () => run.index();
      const found = (word: string) => searchHistory(store.db, store.engine, word, {}, 10).hits.length;
      index();
      expect(found("heronword")).toBe(1);
      // A message written while the source's connection stays open: seen through the data version.
      writer
        .prepare(
          "INSERT INTO messages (id, session_id, role, text, at, updated_at) VALUES ('w2', 's-w', 'assistant', 'later egretword', ?, ?)",
        )
        .run(T + 1, T + 1);
      const grown = readFileSync(`${toySqlFile(env)}-wal`);
      index();
      expect(found("egretword")).toBe(1);
      expect(readFileSync(`${toySqlFile(env)}-wal`).equals(grown)).toBe(true);
      expect(grown.subarray(0, wal.length).equals(wal)).toBe(true);
    } finally {
      writer.close();
      run.close();
    }
  });
});
