import os from "node:os";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { Rng } from "../demo/rng.js";
import { fig, type Figure } from "./measure.js";

export interface MachineInfo {
  cpu: string;
  cores: Figure;
  memory: Figure;
  platform: string;
  node: string;
  sqlite: string;
  loadAverage: Figure;
  /** A fixed workload's time on this machine now (machineSpeed): how runs on other days compare. */
  speed: Figure;
}

/** Where the numbers were measured. */
export function machineInfo(): MachineInfo {
  const db = new Database(":memory:");
  const sqlite = (db.prepare("SELECT sqlite_version() AS v").get() as { v: string }).v;
  db.close();
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? "unknown",
    cores: fig(cpus.length, "cores"),
    memory: fig(Math.round((os.totalmem() / 2 ** 30) * 10) / 10, "GiB"),
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    sqlite,
    loadAverage: fig(Math.round(os.loadavg()[0]! * 100) / 100, "runnable tasks (1 min)"),
    speed: fig(machineSpeed(), "ms"),
  };
}

/**
 * The same virtual machine type is not always as fast: on one day, hours apart, the same build's
 * 1M figures differed by 1.6-2.3x (indexing and searches alike). This times a fixed workload of
 * recall's own kinds, each run alike: 20,000 generated rows written into an FTS5 table in
 * memory, 300 ranked two-word searches over it, and the rows' text counted in JavaScript. The
 * least of three runs, in ms; a run with twice the figure meets half the speed.
 */
export function machineSpeed(): number {
  let best = Infinity;
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    speedWorkload();
    best = Math.min(best, performance.now() - started);
  }
  return Math.round(best);
}

const SPEED_ROWS = 20_000;
const SPEED_WORDS = 2_000;

/** Returns what it counted, so no step is optimised away. */
function speedWorkload(): number {
  const rng = new Rng(42);
  // Word k drawn about 1/(k+1) as often (log-uniform): a few common words and a long tail.
  const word = () => `w${Math.floor(Math.exp(rng.next() * Math.log(SPEED_WORDS + 1))) - 1}`;
  const db = new Database(":memory:");
  try {
    db.exec("CREATE VIRTUAL TABLE t USING fts5(body)");
    const insert = db.prepare("INSERT INTO t (rowid, body) VALUES (?, ?)");
    const texts: string[] = [];
    db.transaction(() => {
      for (let i = 1; i <= SPEED_ROWS; i++) {
        const text = Array.from({ length: 12 + rng.int(40) }, word).join(" ");
        texts.push(text);
        insert.run(i, text);
      }
    })();
    const search = db.prepare("SELECT rowid, bm25(t) AS s FROM t WHERE t MATCH ? ORDER BY s LIMIT 10");
    for (let q = 0; q < 300; q++) search.all(`${word()} ${word()}`);
    let count = 0;
    for (const text of texts)
      for (let at = text.indexOf("w1"); at !== -1; at = text.indexOf("w1", at + 1)) count++;
    return count;
  } finally {
    db.close();
  }
}
