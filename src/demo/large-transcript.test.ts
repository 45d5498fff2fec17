import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateLargeClaudeTranscript } from "./large-transcript.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "recall-demo-large-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("generateLargeClaudeTranscript", () => {
  it("writes a transcript of exactly the requested size with one pathological line", async () => {
    const file = path.join(dir, "big.jsonl");
    const r = await generateLargeClaudeTranscript({
      path: file,
      bytes: 6_000_000,
      seed: 5,
      lineBytes: 4096,
      hugeLineBytes: 2_000_000,
      hugeLineAt: 0.3,
    });
    expect(statSync(file).size).toBe(6_000_000);
    expect(r.bytes).toBe(6_000_000);
    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines.pop()).toBe("");
    expect(lines.length).toBe(r.lines);
    let parent: string | null = null;
    for (const [i, l] of lines.entries()) {
      const rec = JSON.parse(l) as {
        uuid: string;
        parentUuid: string | null;
        sessionId: string;
        type: string;
      };
      expect(rec.sessionId).toBe(r.sessionId);
      expect(rec.parentUuid).toBe(parent);
      parent = rec.uuid;
      if (i === r.hugeLine) expect(l.length + 1).toBe(2_000_000);
      else expect(l.length).toBeLessThan(2 * 4096 + 1);
    }
    expect(r.hugeLine).not.toBeNull();
  });

  it("is deterministic for a seed", async () => {
    const hash = async (name: string, seed: number): Promise<string> => {
      const file = path.join(dir, name);
      await generateLargeClaudeTranscript({ path: file, bytes: 300_000, seed });
      return createHash("sha256").update(readFileSync(file)).digest("hex");
    };
    expect(await hash("a.jsonl", 9)).toBe(await hash("b.jsonl", 9));
    expect(await hash("c.jsonl", 10)).not.toBe(await hash("a.jsonl", 9));
  });
});
