import { mkdirSync, renameSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { generateLargeClaudeTranscript } from "../demo/index.js";
import { fig, round, type Figure } from "./measure.js";
import type { IndexRun } from "./index-run.js";

export interface LargeTranscriptFigures {
  bytes: Figure;
  lines: Figure;
  /** The one pathological line planted in the middle (discarded from the index, counted, retained). */
  hugeLine: Figure;
  generate: Figure;
  wall: Figure;
  megabytesPerSecond: Figure;
  linesPerSecond: Figure;
  peakRss: Figure;
  oversized: Figure;
  longestBatch: Figure;
}

/** Size of the one transcript per scale: the 2 GB at 1m, smaller for quicker runs. */
export const LARGE_TRANSCRIPT_BYTES = { tiny: 16e6, "10k": 100e6, "100k": 500e6, "1m": 2e9 } as const;
export const HUGE_LINE_BYTES = 20 * 1024 * 1024;

const MiB = 2 ** 20;

/**
 * One Claude Code transcript of `bytes` (with a 20 MiB line) indexed by a fresh worker process:
 * the memory bound is that indexing never holds more than a batch, whatever the file's size.
 */
export async function benchLargeTranscript(
  root: string,
  bytes: number,
  index: (home: string, recallHome: string) => IndexRun,
): Promise<LargeTranscriptFigures> {
  const home = path.join(root, "home");
  const dir = path.join(home, ".claude", "projects", "-home-demo-code-big-monorepo");
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  const generated = await generateLargeClaudeTranscript({
    path: path.join(dir, "transcript.jsonl"),
    bytes,
    hugeLineBytes: Math.min(HUGE_LINE_BYTES, Math.floor(bytes / 4)),
  });
  // Claude Code names a transcript after its session.
  renameSync(generated.path, path.join(dir, `${generated.sessionId}.jsonl`));
  const generateMs = performance.now() - t0;
  const run = index(home, path.join(root, "recall"));
  const seconds = run.wallMs / 1000;
  return {
    bytes: fig(round(generated.bytes / MiB, 1), "MiB"),
    lines: fig(generated.lines, "lines"),
    hugeLine: fig(round(Math.min(HUGE_LINE_BYTES, Math.floor(bytes / 4)) / MiB, 1), "MiB"),
    generate: fig(round(generateMs / 1000, 1), "s"),
    wall: fig(round(seconds, 2), "s"),
    megabytesPerSecond: fig(round(generated.bytes / MiB / seconds, 2), "MiB/s"),
    linesPerSecond: fig(Math.round(generated.lines / seconds), "lines/s"),
    peakRss: fig(round(run.maxRssBytes / MiB, 1), "MiB"),
    oversized: fig(run.oversized ?? null, "lines"),
    longestBatch: fig(round(run.longestBatchMs, 1), "ms"),
  };
}
