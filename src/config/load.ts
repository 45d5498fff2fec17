import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { RecallError } from "../core/errors.js";
import { describeIssues } from "../core/validation.js";
import { ConfigSchema, type Config } from "./schema.js";

export const CONFIG_FILE = "config.json";

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
    throw new RecallError("Config", `${file}: ${describeIssues(parsed.error)}`);
  }
  return parsed.data;
}
