import { separateCjk } from "./cjk.js";

/**
 * Lines only a read view holds (transcript-turn.ts writes them in read mode alone): a tool
 * result's `[result: … ok]`, a preview's omitted-middle marker, context and image placeholders.
 */
const READ_ONLY_LINE =
  /^(?:\[result: [^\n]*ok\]|\[… (?:over )?\d+ lines? omitted …\]|\[… \d+ characters omitted …\]|\[context(?:: [^\n]*)?\]|\[image(?:: [^\n]*)?\])$/;

const MAY_HOLD_READ_ONLY_LINE = /^\[(?:result: |… |context|image)/m;

/** How many lines of `read` are shaped like read-only lines. */
export function readOnlyLineCount(read: string): number {
  if (!MAY_HOLD_READ_ONLY_LINE.test(read)) return 0;
  let count = 0;
  for (const line of read.split("\n")) if (READ_ONLY_LINE.test(line)) count += 1;
  return count;
}

/**
 * The search text a read text stands for: its read-only lines dropped, blank runs collapsed as
 * the projection's sink collapses them, CJK characters separated. The index keeps one copy of a
 * record's text (the read text) and stores a document's searched text apart only when this does
 * not give it exactly (indexer/ingest.ts decides by comparing), so a rule missed here costs
 * space, never a wrong text.
 */
export function searchTextFromRead(read: string): string {
  let text = read;
  if (MAY_HOLD_READ_ONLY_LINE.test(text)) {
    const lines = text.split("\n");
    const kept = lines.filter((line) => !READ_ONLY_LINE.test(line));
    if (kept.length !== lines.length)
      text = kept
        .join("\n")
        .replace(/\n{3,}/g, "\n\n")
        .trim();
  }
  return separateCjk(text);
}
