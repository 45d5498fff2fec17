import { describe, expect, it } from "vitest";
import { tempHistoryStores } from "../../test/helpers/temp-store.js";
import { PROJECTION_VERSION } from "../projection/index.js";
import { emptyBatch, type SourceBatch, type SourceCheckpoint } from "../sources/types.js";
import { indexView } from "./checkpoints.js";
import { ingestBatch } from "./ingest.js";
import { pendingView } from "./pending-view.js";

const cp = (key: string, offset: number, source = "s"): SourceCheckpoint => ({
  source,
  key,
  offset,
  size: null,
  mtime: null,
  headHash: null,
  state: null,
});

const batchOf = (...checkpoints: SourceCheckpoint[]): SourceBatch => ({ ...emptyBatch(), checkpoints });

/** Every checkpoint a view holds for source "s", read in pages of `limit`. */
function pageThrough(view: ReturnType<typeof indexView>, limit: number): [string, number][] {
  const out: [string, number][] = [];
  let after = "";
  for (;;) {
    const page = view.checkpointsAfter("s", after, limit);
    out.push(...page.map((c) => [c.key, c.offset] as [string, number]));
    if (page.length < limit) return out;
    after = page[page.length - 1]!.key;
  }
}

describe("the pipeline thread's view of checkpoints, in pages", () => {
  const store = tempHistoryStores();

  it("overlays the batches handed over but not committed on the committed pages, in key order", async () => {
    const { db } = await store();
    ingestBatch(db, batchOf(cp("b", 1), cp("d", 1), cp("f", 1), cp("x", 9, "other")), {
      source: "s",
      projectionVersion: PROJECTION_VERSION,
      now: 0,
    });
    let committed = 0;
    const view = pendingView(
      indexView(db),
      () => committed,
      () => {},
      false,
    );
    view.add(1, "s", batchOf(cp("a", 2), cp("d", 2), cp("g", 2)));
    view.add(2, "s", batchOf(cp("d", 3), cp("c", 3)));
    const expected: [string, number][] = [
      ["a", 2],
      ["b", 1],
      ["c", 3],
      ["d", 3],
      ["f", 1],
      ["g", 2],
    ];
    for (const limit of [1, 2, 3, 4, 100]) expect(pageThrough(view, limit)).toEqual(expected);
    // Tick 1 committed: its own checkpoints are no longer overlaid (the index holds what it wrote).
    committed = 1;
    expect(pageThrough(view, 2)).toEqual([
      ["b", 1],
      ["c", 3],
      ["d", 3],
      ["f", 1],
    ]);
  });
});
