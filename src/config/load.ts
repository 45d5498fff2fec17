import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { z } from "zod";
import { RecallError } from "../core/errors.js";
import { ConfigSchema, type Config } from "./schema.js";

export const CONFIG_FILE = "config.json";

/** "sources.dyadDatabases[0]: expected string" — the field first, then the problem. */
export function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.reduce<string>(
    (acc, key) => (typeof key === "number" ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)),
    "",
  );
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => (where ? `${where}.${k}` : k)).join(", ");
    return `${keys}: unknown field`;
  }
  return `${where || "(root)"}: ${issue.message}`;
}

/** Reads RECALL_HOME/config.json; a missing file means defaults, an invalid one names the field. */
export function loadConfig(home: string): Config {
  const file = path.join(home, CONFIG_FILE);
  if (!existsSync(file)) return ConfigSchema.parse({});
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new RecallError("Config", `${file}: not valid JSON (${(error as Error).message})`);
  }
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    throw new RecallError("Config", `${file}: ${parsed.error.issues.map(describeIssue).join("; ")}`);
  }
  return parsed.data;
}
