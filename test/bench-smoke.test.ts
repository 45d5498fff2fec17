import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Every measured number in the JSON output: objects with a `value` (number or null) must carry a unit. */
function figures(
  value: unknown,
  path: string,
  out: { path: string; figure: Record<string, unknown> }[],
): void {
  if (Array.isArray(value)) value.forEach((v, i) => figures(v, `${path}[${i}]`, out));
  else if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    if ("value" in o && (typeof o.value === "number" || o.value === null)) out.push({ path, figure: o });
    else for (const [k, v] of Object.entries(o)) figures(v, `${path}.${k}`, out);
  }
}

describe("npm run bench at the smallest scale", () => {
  it("runs every section on both transcript corpora and reports every figure with its unit", () => {
    const run = spawnSync(
      process.execPath,
      ["dist/bench/main.js", "--scale", "tiny", "--queries", "12", "--json"],
      {
        cwd: root,
        encoding: "utf8",
        maxBuffer: 64 << 20,
        timeout: 170_000,
      },
    );
    expect(run.status, run.stderr).toBe(0);
    // The JSON is walked loosely here; its types live in src/bench/report.ts.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const result = JSON.parse(run.stdout) as Record<string, any>;
    const found: { path: string; figure: Record<string, unknown> }[] = [];
    figures(result, "$", found);
    expect(found.length).toBeGreaterThan(200);
    for (const f of found) expect(typeof f.figure.unit, f.path).toBe("string");

    const [scale] = result.scales;
    expect(scale.scale).toBe("tiny");
    // Indexing, search per class, reads, baselines, cold process: present or honestly unavailable,
    // on both history corpora (the demo generator's and the Zipf one) and the embedded chats.
    expect(Object.keys(scale.history)).toEqual(["demo", "zipf"]);
    for (const s of [scale.history.demo, scale.history.zipf, scale.chats]) {
      if ("unavailable" in s) {
        expect(s.unavailable).toMatch(/^unavailable: /);
        continue;
      }
      for (const key of [
        "messagesPerSecond",
        "sourceMegabytesPerSecond",
        "peakRss",
        "indexSize",
        "indexToSource",
        "longestBatch",
      ]) {
        expect(s.indexing[key].unit, key).toBeTruthy();
      }
      for (const cls of ["rare", "mixed", "common", "identifier"]) {
        const c = s.search.classes[cls];
        for (const p of ["p50", "p95", "p99"]) expect(c.latency[p].unit).toBe("ms");
        expect(c.fidelity.rankingOverlap.unit).toMatch(/overlap/);
      }
    }
    for (const name of ["demo", "zipf"]) {
      const history = scale.history[name];
      expect(history.corpus.name).toBe(name);
      // The backfill's CPU time, and (Linux) what it had to read from disk: what its wall time depends on.
      expect(history.indexing.cpu.value).toBeGreaterThan(0);
      if (process.platform === "linux") expect(history.indexing.diskRead.unit).toBe("MiB");
      expect(history.search.classes.filtered.latency.p95.unit).toBe("ms");
      expect(history.search.classes.rare.needleFound.value).toBeGreaterThan(0.9);
      expect(history.search.conversationPage.p95.unit).toBe("ms");
      expect(history.baselines.like.latency.p50.unit).toBe("ms");
      const rg = history.baselines.ripgrep;
      if (rg.available) expect(rg.ratio.unit).toMatch(/ripgrep/);
      else expect(rg.note).toMatch(/ripgrep/);
      const cold = history.coldProcess;
      if (cold.available) expect(cold.maxPeakRss.unit).toBe("MiB");
      const mcp = history.mcp;
      expect(mcp.available, mcp.note).toBe(true);
      expect(mcp.roundTrip.p95.unit).toBe("ms");
      expect(mcp.firstCall.p95.unit).toBe("ms");
      const first = history.mcpFirstCall;
      expect(first.available, first.note).toBe(true);
      for (const cls of ["rare", "identifier", "mixed", "common"])
        expect(first.classes[cls].p95.unit).toBe("ms");
      expect(history.live.latency.p95.unit).toBe("ms");
      // The index's pages by table: the records' rows (with their documents) and the FTS5 index among them.
      const tables = history.indexSplit.tables.map((t: { table: string }) => t.table);
      expect(tables).toEqual(expect.arrayContaining(["recall_record_rows", "recall_fts"]));
    }
    expect(scale.history.zipf.corpus.wordTypes.value).toBeGreaterThan(100_000);
    expect(scale.chats.search.readChat.p95.unit).toBe("ms");
    expect(scale.large.peakRss.unit).toBe("MiB");
    expect(scale.large.lines.value).toBeGreaterThan(1000);
    // LoCoMo needs ../shared (absent from a user's clone): figures or an honest note.
    if ("unavailable" in result.locomo) expect(result.locomo.unavailable).toMatch(/LoCoMo/);
    else expect(result.locomo.searchChats.total.session.hitAt1.unit).toBe("%");
    expect(result.targets.length).toBeGreaterThan(10);
    for (const t of result.targets) expect(t.measured.unit, t.figure).toBeTruthy();
    expect(result.machine.cores.unit).toBe("cores");
    // Every section runs in turn: about 45 s alone, past a minute on a busy machine.
  }, 180_000);
});
