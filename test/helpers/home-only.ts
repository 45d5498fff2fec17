import { SOURCES } from "../../src/sources/registry.js";

/**
 * An environment in which HOME alone says where recall and every agent keep their files: each
 * variable a registered source reads (its definition's `env`) and RECALL_HOME are blank, so
 * nothing of the machine running the tests leaks in.
 */
export function homeOnlyEnv(home: string): Record<string, string> {
  const blank = ["RECALL_HOME", ...SOURCES.flatMap((definition) => definition.env)];
  return { ...Object.fromEntries(blank.map((name) => [name, ""])), HOME: home };
}
