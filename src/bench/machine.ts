import os from "node:os";
import Database from "better-sqlite3";
import { fig, type Figure } from "./measure.js";

export interface MachineInfo {
  cpu: string;
  cores: Figure;
  memory: Figure;
  platform: string;
  node: string;
  sqlite: string;
  loadAverage: Figure;
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
  };
}
