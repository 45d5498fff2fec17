import { appendFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../../../test/helpers/tmp.js";
import { readJsonl } from "./jsonl-reader.js";

describe("bounded JSONL reader", () => {
  let cleanup = () => {};
  afterEach(() => cleanup());
  const file = () => {
    const t = tempDir();
    cleanup = t.cleanup;
    return path.join(t.dir, "a.jsonl");
  };

  it("holds back a partial last line and completes it on a later read", () => {
    const f = file();
    writeFileSync(f, '{"a":1}\n{"b":');
    const first = readJsonl(f, { offset: 0, maxBytes: 1 << 20 });
    expect(first.lines.map((l) => l.text)).toEqual(['{"a":1}']);
    expect(first.heldBack).toBe(true);
    expect(first.nextOffset).toBe(8);
    appendFileSync(f, "2}\n");
    const second = readJsonl(f, { offset: first.nextOffset, maxBytes: 1 << 20 });
    expect(second.lines).toEqual([{ offset: 8, length: 8, text: '{"b":2}' }]);
    expect(second.heldBack).toBe(false);
  });

  it("assembles lines across 64 KiB reads and stops soon after maxBytes", () => {
    const f = file();
    const long = JSON.stringify({ t: "x".repeat(200_000) });
    writeFileSync(f, `${long}\n${'{"n":2}\n'.repeat(20_000)}`);
    const all = readJsonl(f, { offset: 0, maxBytes: 1 << 30 });
    expect(all.lines.length).toBe(20_001);
    expect(all.lines[0]!.text.length).toBe(long.length);
    // A line begun within the budget is finished; the rest is left for later calls.
    const bounded = readJsonl(f, { offset: 0, maxBytes: 64 * 1024 });
    expect(bounded.lines[0]!.text).toBe(long);
    expect(bounded.bytesRead).toBeLessThanOrEqual(long.length + 64 * 1024);
    expect(bounded.lines.length).toBeLessThan(20_001);
    let offset = bounded.nextOffset;
    let count = bounded.lines.length;
    while (offset < all.size!) {
      const r = readJsonl(f, { offset, maxBytes: 64 * 1024 });
      count += r.lines.length;
      offset = r.nextOffset;
    }
    expect(count).toBe(20_001);
  });

  it("discards an oversized line in bounded memory, counts it and keeps going", () => {
    const f = file();
    writeFileSync(f, `{"a":1}\n${"y".repeat(300_000)}\n{"c":3}\n`);
    const r = readJsonl(f, { offset: 0, maxBytes: 1 << 30, maxLineBytes: 100_000 });
    expect(r.lines.map((l) => l.text)).toEqual(['{"a":1}', '{"c":3}']);
    expect(r.oversized).toEqual([{ offset: 8, length: 300_001 }]);
  });

  it("carries an oversized line across calls", () => {
    const f = file();
    writeFileSync(f, `${"z".repeat(200_000)}\n{"ok":1}\n`);
    let offset = 0;
    let discarding = null;
    const oversized = [];
    const lines = [];
    for (let i = 0; i < 10 && offset < 200_010; i++) {
      const r = readJsonl(f, { offset, maxBytes: 64 * 1024, maxLineBytes: 100_000, discarding });
      offset = r.nextOffset;
      discarding = r.discarding;
      oversized.push(...r.oversized);
      lines.push(...r.lines.map((l) => l.text));
    }
    expect(oversized).toEqual([{ offset: 0, length: 200_001 }]);
    expect(lines).toEqual(['{"ok":1}']);
  });
});
