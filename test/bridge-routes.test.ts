import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openBridgeWriter, type BridgeWriter } from "../src/bridge/writer.js";
import {
  DECISION_HISTORY_PAGE,
  DECISION_TEXT_MAX_CHARS,
  decisionHistory,
  readRunChunk,
} from "../src/conversations/bridge.js";
import { RecallError } from "../src/core/errors.js";
import { tempDir } from "./helpers/tmp.js";

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);
let t: ReturnType<typeof tempDir>;
let root: string;
let w: BridgeWriter;

beforeEach(() => {
  t = tempDir("recall-bridge-routes-");
  root = path.join(t.dir, "bridge");
  w = openBridgeWriter(root);
});

afterEach(() => {
  w.close();
  t.cleanup();
});

function kindOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof RecallError) return error.kind;
    throw error;
  }
  return "none";
}

describe("readRunChunk", () => {
  it("returns a bounded chunk from a byte offset, ending on a line, with the next offset", () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `line ${i} of the run log\n`).join("");
    const run = w.startRun({ job: "build", at: T0, log: lines });
    const first = readRunChunk(root, run.name.base, "0");
    expect(first).toMatchObject({ run: run.name.log, job: "build", archived: false, from: 0 });
    expect(Buffer.byteLength(first.text)).toBeLessThanOrEqual(64 * 1024);
    expect(first.text.endsWith("\n")).toBe(true);
    expect(first.next).toBe(Buffer.byteLength(first.text));
    const second = readRunChunk(root, `${run.name.base}.log`, first.next!);
    expect(lines.startsWith(first.text + second.text)).toBe(true);
    let at: number | null = 0;
    let text = "";
    while (at !== null) {
      const chunk = readRunChunk(root, run.name.base, at);
      text += chunk.text;
      at = chunk.next;
    }
    expect(text).toBe(lines);
    const offset = lines.indexOf("line 2999");
    expect(readRunChunk(root, run.name.base, String(offset)).text).toBe("line 2999 of the run log\n");
  });

  it("finds archived runs", () => {
    const run = w.startRun({ job: "old", at: T0, log: "archived text\n" });
    w.archiveRun(run.name.log);
    expect(readRunChunk(root, run.name.base)).toMatchObject({
      archived: true,
      text: "archived text\n",
      next: null,
    });
  });

  it("validates names and offsets and never resolves a path outside runs/", () => {
    w.startRun({ job: "ok", at: T0, log: "abc\n" });
    const base = "ok-20260601T120000Z";
    expect(kindOf(() => readRunChunk(root, "../bridge"))).toBe("Validation");
    expect(kindOf(() => readRunChunk(root, "a/b"))).toBe("Validation");
    expect(kindOf(() => readRunChunk(root, ""))).toBe("Validation");
    expect(kindOf(() => readRunChunk(root, base, "-1"))).toBe("Validation");
    expect(kindOf(() => readRunChunk(root, base, "1e3"))).toBe("Validation");
    expect(kindOf(() => readRunChunk(root, base, 99))).toBe("Validation");
    expect(kindOf(() => readRunChunk(root, "missing-20260601T120000Z"))).toBe("NotFound");
    // A symlink in runs/ pointing elsewhere is not followed out of the folder.
    const outside = path.join(t.dir, "secret.log");
    writeFileSync(outside, "secret\n");
    symlinkSync(outside, path.join(root, "runs", "link-20260601T120000Z.log"));
    expect(kindOf(() => readRunChunk(root, "link-20260601T120000Z"))).toBe("NotFound");
    mkdirSync(path.join(root, "runs", "dir-20260601T120000Z.log"));
    expect(kindOf(() => readRunChunk(root, "dir-20260601T120000Z"))).toBe("NotFound");
  });
});

describe("readRunChunk on long lines", () => {
  it("cuts a line longer than a chunk between characters, never inside one", () => {
    const line = `${"a".repeat(64 * 1024 - 1)}${"é".repeat(10)}\n`;
    const run = w.startRun({ job: "utf", at: T0, log: line });
    const first = readRunChunk(root, run.name.base, 0);
    expect(first.text).toBe("a".repeat(64 * 1024 - 1));
    const second = readRunChunk(root, run.name.base, first.next!);
    expect(second.text).toBe(`${"é".repeat(10)}\n`);
  });
});

describe("decisionHistory", () => {
  it("returns every revision of a topic in order", () => {
    for (let i = 1; i <= 3; i++) w.decide({ topic: "db", decision: `choice ${i}`, by: "lead", at: T0 + i });
    w.decide({ topic: "other", decision: "x", by: "lead", at: T0 });
    const history = decisionHistory(root, "db");
    expect(history.topic).toBe("db");
    expect(history.revisions.map((r) => [r.id, r.rev, r.decision, r.at])).toEqual([
      ["decision:db@1", 1, "choice 1", T0 + 1],
      ["decision:db@2", 2, "choice 2", T0 + 2],
      ["decision:db@3", 3, "choice 3", T0 + 3],
    ]);
  });

  it("pages a long history (after / next) and cuts each text to its bound", () => {
    const long = "é".repeat(DECISION_TEXT_MAX_CHARS + 10);
    const total = DECISION_HISTORY_PAGE + 3;
    for (let i = 1; i <= total; i++)
      w.decide({
        topic: "db",
        decision: i === 2 ? long : `choice ${i}`,
        ...(i === 3 ? { rationale: long } : {}),
        by: "lead",
        at: T0 + i,
      });
    const first = decisionHistory(root, "db");
    expect(first.revisions).toHaveLength(DECISION_HISTORY_PAGE);
    expect(first.next).toBe(DECISION_HISTORY_PAGE);
    expect(first.revisions[1]).toMatchObject({
      decision: `${"é".repeat(DECISION_TEXT_MAX_CHARS - 1)}…`,
      truncated: true,
    });
    expect(first.revisions[2]).toMatchObject({
      decision: "choice 3",
      rationale: `${"é".repeat(DECISION_TEXT_MAX_CHARS - 1)}…`,
      truncated: true,
    });
    expect(first.revisions[0]).not.toHaveProperty("truncated");
    const rest = decisionHistory(root, "db", String(first.next));
    expect(rest.revisions.map((r) => r.rev)).toEqual([total - 2, total - 1, total]);
    expect(rest.next).toBeNull();
    expect(decisionHistory(root, "db", total).revisions).toEqual([]);
    expect(kindOf(() => decisionHistory(root, "db", "x"))).toBe("Validation");
    expect(kindOf(() => decisionHistory(root, "nope", 5))).toBe("NotFound");
  });

  it("is NotFound for an unknown topic and Validation for a malformed one", () => {
    expect(kindOf(() => decisionHistory(root, "nope"))).toBe("NotFound");
    expect(kindOf(() => decisionHistory(root, "../x"))).toBe("Validation");
    expect(kindOf(() => decisionHistory(path.join(t.dir, "none"), "db"))).toBe("NotFound");
  });
});
