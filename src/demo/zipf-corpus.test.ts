import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseClaudeLine } from "../sources/claude-code/record.js";
import { listFiles } from "./corpus-audit.js";
import { generateZipfCorpus, type ZipfManifest } from "./zipf-corpus.js";

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), "recall-zipf-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const MESSAGES = 6000;

/** Every file's SHA-256 by its path under the root. */
function fingerprint(root: string): string[] {
  return listFiles(root).map(
    (rel) =>
      `${rel} ${createHash("sha256")
        .update(readFileSync(path.join(root, rel)))
        .digest("hex")}`,
  );
}

describe("the Zipf corpus", () => {
  let root: string;
  let m: ZipfManifest;
  let lines: Record<string, unknown>[];

  beforeAll(() => {
    root = tmp();
    m = generateZipfCorpus({ root, messages: MESSAGES, seed: 3 });
    lines = listFiles(root).flatMap((rel) =>
      readFileSync(path.join(root, rel), "utf8")
        .split("\n")
        .filter((l) => l.length > 0)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    );
  });

  it("is the same, file for file, from the same seed", () => {
    const again = tmp();
    const n = generateZipfCorpus({ root: again, messages: MESSAGES, seed: 3 });
    expect(fingerprint(again)).toEqual(fingerprint(root));
    expect(n.needles.map((x) => x.token)).toEqual(m.needles.map((x) => x.token));
  });

  it("writes the messages asked for, as Claude Code lines recall's parser reads", () => {
    const conversation = lines.filter((l) => l.type === "user" || l.type === "assistant");
    expect(conversation.length).toBe(m.messages);
    expect(m.messages).toBe(MESSAGES);
    for (const l of conversation.slice(0, 500)) expect(parseClaudeLine(JSON.stringify(l)).type).toBe("turn");
  });

  it("plants each needle once, in the line its locator names", () => {
    expect(m.needles.length).toBe(MESSAGES / 100);
    const text = lines.map((l) => JSON.stringify(l));
    for (const n of m.needles) {
      const holding = text.filter((t) => t.includes(n.token));
      expect(holding).toHaveLength(1);
      expect(holding[0]).toContain(n.ref.uuid as string);
      expect(holding[0]).toContain(n.text);
    }
  });

  it("draws words on a Zipf law with a long tail and long-tailed tool outputs", () => {
    const counts = new Map<string, number>();
    for (const l of lines) {
      const content = (l.message as { content?: unknown } | undefined)?.content;
      if (l.type !== "user" || typeof content !== "string") continue;
      for (const w of content.toLowerCase().split(/[\s.,?]+/)) if (w) counts.set(w, (counts.get(w) ?? 0) + 1);
    }
    const ranked = [...counts.values()].sort((a, b) => b - a);
    // Rank 1 against rank 10: about 10^1.05 ≈ 11 on a Zipf law of exponent 1.05.
    expect(ranked[0]! / ranked[9]!).toBeGreaterThan(5);
    expect(ranked[0]! / ranked[9]!).toBeLessThan(25);
    expect(ranked.filter((c) => c === 1).length / ranked.length).toBeGreaterThan(0.4);
    expect(m.vocabulary.types).toBe(250_000);
    const outputs = lines
      .map((l) => (l.toolUseResult as { stdout?: string } | undefined)?.stdout?.length)
      .filter((n): n is number => n !== undefined)
      .sort((a, b) => a - b);
    expect(outputs[Math.floor(outputs.length / 2)]!).toBeLessThan(400);
    expect(outputs.at(-1)!).toBeGreaterThan(5_000);
  });
});
