import Database from "better-sqlite3";
import { copyFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDyadDb } from "../../test/helpers/dyad.js";
import { checkedFtsRows } from "../../test/helpers/fts-answers.js";
import { tempDir } from "../../test/helpers/tmp.js";
import { COPY_CRISIS_MERGE, CRISIS_MERGE, ftsSegments } from "../store/fts-merge.js";
import { mergeOffThread } from "../store/fts-merge-worker.js";
import { attachChatSearch } from "./attach-chat-search.js";
import { defaultHistoryFile, runSplit, type SplitStep } from "./history-split.js";

const WORDS = ["heron", "pelican", "budget", "lighthouse", "kestrel", "otter", "message"];

/** A host of `messages` indexed chat messages, closed; returns its file. */
async function host(dir: string, messages = 80): Promise<string> {
  const f = createDyadDb(dir);
  const app = f.app("one");
  for (let c = 0; c < 4; c++) {
    const chat = f.chat(app, `chat ${c}`);
    for (let m = 0; m < messages / 4; m++)
      f.message(
        chat,
        m % 2 ? "assistant" : "user",
        `note ${m} on ${WORDS[(c + m) % 6]} and ${WORDS[m % 5]} tag${c}x${m}`,
      );
  }
  const search = await attachChatSearch(f.db, { file: f.file });
  await search.indexer.drain();
  await search.close();
  f.db.close();
  return f.file;
}

/** What history.db's FTS5 index holds (segments, crisismerge), read on a connection of its own. */
function ftsState(file: string) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const crisis = db.prepare("SELECT v FROM recall_fts_config WHERE k = 'crisismerge'").pluck().get();
    // Each whole segment has a first leaf page, rowid (segid << 37) + 1 (fts5_index.c).
    const firstLeaves = db
      .prepare("SELECT count(*) FROM recall_fts_data WHERE id > 10 AND (id & 137438953471) = 1")
      .pluck()
      .get() as number;
    return { segments: ftsSegments(db), crisis, firstLeaves };
  } finally {
    db.close();
  }
}

const ftsAnswers = (file: string) => checkedFtsRows(file, WORDS);

describe("the split's FTS5 merging, off the host's thread", () => {
  let cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.reverse()) c();
    cleanups = [];
  });
  const temp = () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    return t.dir;
  };

  it("no copy step merges (segments only grow, crisismerge raised); one worker merges after the copy", async () => {
    const file = await host(temp());
    const to = defaultHistoryFile(file);
    const seen: ({ phase: string } & ReturnType<typeof ftsState>)[] = [];
    const report = await runSplit({
      hostFile: file,
      maxRows: 5,
      onStep: (s: SplitStep) => {
        if (s.phase === "copy" || s.phase === "merge") seen.push({ phase: s.phase, ...ftsState(to) });
      },
    });
    expect(report.status).toBe("switched");
    const copies = seen.slice(
      0,
      seen.findIndex((s) => s.phase === "merge"),
    );
    expect(copies.length).toBeGreaterThan(10);
    for (const [i, s] of copies.entries()) {
      expect(s.crisis).toBe(COPY_CRISIS_MERGE);
      expect(s.segments).toBe(s.firstLeaves); // the structure record read right
      if (i > 0) expect(s.segments).toBeGreaterThanOrEqual(copies[i - 1]!.segments);
    }
    const flushed = copies.at(-1)!.segments;
    expect(flushed).toBeGreaterThan(10);
    // The merge: one worker run, fewer segments, crisismerge back to the bounded policy's.
    expect(seen.filter((s) => s.phase === "merge")).toHaveLength(1);
    expect(seen.at(-1)!.segments).toBeLessThan(flushed);
    expect(seen.at(-1)!.crisis).toBe(CRISIS_MERGE);
    expect(report.merge.runs).toBe(1);
    expect(report.merge.transactions).toBeGreaterThan(0);
    expect(report.phases.merge?.steps).toBe(1);
    expect(report.longestBatchCpuMs).toBeLessThan(50);
    expect(ftsAnswers(to)).toEqual(ftsAnswers(file));
  });

  it("pauses the copy for a worker merge when the segments reach maxSegments", async () => {
    const file = await host(temp());
    const to = defaultHistoryFile(file);
    let most = 0;
    const crisis = new Set<unknown>();
    const report = await runSplit({
      hostFile: file,
      maxRows: 5,
      maxSegments: 6,
      onStep: (s) => {
        if (s.phase !== "copy") return;
        const state = ftsState(to);
        most = Math.max(most, state.segments);
        crisis.add(state.crisis);
      },
    });
    expect(report.status).toBe("switched");
    expect(report.merge.runs).toBeGreaterThan(2);
    expect(most).toBeLessThanOrEqual(6);
    // Merges during the copy leave crisismerge raised: a copy step never merges.
    expect([...crisis]).toEqual([COPY_CRISIS_MERGE]);
    expect(ftsAnswers(to)).toEqual(ftsAnswers(file));
  });

  it("a merge cut short, as a kill leaves it, resumes to the same verified result", async () => {
    const dir = temp();
    // Enough terms that a merge writes several pages: a one-page merge stops part way.
    const template = await host(dir, 1200);
    const reference = path.join(dir, "reference.db");
    copyFileSync(template, reference);
    const phases: string[] = [];
    const done = await runSplit({
      hostFile: reference,
      maxRows: 40,
      onStep: (s) => void phases.push(s.phase),
    });
    const mergeAt = phases.indexOf("merge") + 1; // batches count from 1
    expect(phases[mergeAt - 2]).toBe("copy");

    const killed = path.join(dir, "killed.db");
    copyFileSync(template, killed);
    await expect(
      runSplit({
        hostFile: killed,
        maxRows: 40,
        onStep: (s) => {
          if (s.batch === mergeAt - 1) throw new Error("killed");
        },
      }),
    ).rejects.toThrow("killed");
    // One merge transaction committed, the rest not done: what a kill in the worker's run leaves.
    const to = defaultHistoryFile(killed);
    const cut = await mergeOffThread(to, { pages: 1, maxTransactions: 1, crisisMerge: null });
    expect(cut.transactions).toBe(1);
    // Part way: the level's input segments still there beside the output segment begun.
    const cutShort = ftsState(to);
    expect(cutShort.crisis).toBe(COPY_CRISIS_MERGE);

    const resumed = await runSplit({ hostFile: killed, maxRows: 40 });
    expect(resumed.status).toBe("switched");
    expect(resumed.merge.transactions).toBeGreaterThan(0);
    expect(resumed.counts).toEqual(done.counts);
    expect(resumed.hashes).toEqual(done.hashes);
    expect(ftsAnswers(to)).toEqual(ftsAnswers(done.history));
    expect(ftsState(to).crisis).toBe(CRISIS_MERGE);
    expect(ftsState(to).segments).toBeLessThan(cutShort.segments);
  });
});
