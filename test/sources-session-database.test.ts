/**
 * The SQLite session database base (sources/databases/session-database-source.ts) keeps the
 * source contract, on a toy agent whose sessions live in a WAL database.
 */
import { rmSync } from "node:fs";
import type { Env } from "../src/config/paths.js";
import { sourceContract } from "./helpers/source-contract.js";
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
