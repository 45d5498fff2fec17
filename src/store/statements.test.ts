import Database from "better-sqlite3";
import { expect, it } from "vitest";
import { pluckedStatement, statement } from "./statements.js";

it("a plucked statement never switches the shared one of the same SQL", () => {
  const db = new Database(":memory:");
  db.exec("CREATE TABLE meta (key TEXT, value TEXT); INSERT INTO meta VALUES ('k', 'v')");
  const sql = "SELECT value FROM meta WHERE key = ?";
  expect(pluckedStatement(db, sql).get("k")).toBe("v");
  expect(statement(db, sql).get("k")).toEqual({ value: "v" });
  expect(pluckedStatement(db, sql)).toBe(pluckedStatement(db, sql)); // still prepared once
  db.close();
});
