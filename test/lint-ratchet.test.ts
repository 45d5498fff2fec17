/**
 * The size and complexity warnings of eslint.config.js (max-lines 400, complexity 20) as a
 * ratchet: their number per rule may only go down. A change that adds one fails here; a change
 * that removes some fails until lint-ratchet.json is lowered to the new count, so the gain stays.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint, type Linter } from "eslint";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const RULES = ["max-lines", "complexity"] as const;
const baseline = JSON.parse(readFileSync(path.join(root, "test/lint-ratchet.json"), "utf8")) as Record<
  (typeof RULES)[number],
  number
>;

async function warnings(): Promise<Record<(typeof RULES)[number], number>> {
  // The two rules alone, with the settings eslint.config.js gives them, without type information.
  const { default: config } = (await import("../eslint.config.js")) as {
    default: { rules?: Linter.RulesRecord }[];
  };
  const rules = Object.fromEntries(
    RULES.map((rule) => [rule, config.findLast((c) => c.rules?.[rule] !== undefined)!.rules![rule]]),
  );
  const eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ["src/**/*.ts"],
        ignores: ["src/**/*.test.ts"],
        languageOptions: { parser: tseslint.parser },
        rules,
      },
    ],
  });
  const counts = { "max-lines": 0, complexity: 0 };
  for (const result of await eslint.lintFiles(["src/**/*.ts"]))
    for (const m of result.messages)
      if (m.ruleId === "max-lines" || m.ruleId === "complexity") counts[m.ruleId]++;
  return counts;
}

describe("lint's size and complexity warnings", () => {
  it("are no more than lint-ratchet.json allows, and it is lowered when they drop", async () => {
    const now = await warnings();
    for (const rule of RULES) {
      expect(now[rule], `${rule}: more warnings than test/lint-ratchet.json allows`).toBeLessThanOrEqual(
        baseline[rule],
      );
      expect(now[rule], `${rule}: fewer warnings now; lower test/lint-ratchet.json to ${now[rule]}`).toBe(
        baseline[rule],
      );
    }
  }, 60_000);
});
