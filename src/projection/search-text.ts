import { separateCjk } from "./cjk.js";

/**
 * Lines only a read view holds (transcript-turn.ts writes them in read mode alone): a tool
 * result's `[result: … ok]`, a preview's omitted-middle marker, context and image placeholders.
 */
const READ_ONLY_LINE =
  /^(?:\[result: [^\n]*ok\]|\[… (?:over )?\d+ lines? omitted …\]|\[… \d+ characters omitted …\]|\[context(?:: [^\n]*)?\]|\[image(?:: [^\n]*)?\])$/;

const MAY_HOLD_READ_ONLY_LINE = /^\[(?:result: |… |context|image)/m;

/**
 * The search text a read text stands for: its read-only lines dropped, blank runs collapsed as
 * the projection's sink collapses them, CJK characters separated. The index keeps one copy of a
 * record's text (the read text) and stores a document's searched text apart only when this does
 * not give it exactly (indexer/ingest.ts decides by comparing), so a rule missed here costs
 * space, never a wrong text.
 */
export function searchTextFromRead(read: string): string {
  return withoutReadOnlyLines(read, null)!;
}

/**
 * searchTextFromRead when `read` holds exactly `written` lines of a read-only shape (the ones
 * its projection wrote, transcript-turn.ts), else null: content shaped like them is searched.
 */
export function searchTextOfProjection(read: string, written: number): string | null {
  return withoutReadOnlyLines(read, written);
}

function withoutReadOnlyLines(read: string, expected: number | null): string | null {
  if (!MAY_HOLD_READ_ONLY_LINE.test(read))
    return expected === null || expected === 0 ? separateCjk(read) : null;
  const lines = read.split("\n");
  const kept = lines.filter((line) => !READ_ONLY_LINE.test(line));
  if (expected !== null && lines.length - kept.length !== expected) return null;
  if (kept.length === lines.length) return separateCjk(read);
  return separateCjk(
    kept
      .join("\n")
      .replace(/\n{3,}/g, "\n\n")
      .trim(),
  );
}
