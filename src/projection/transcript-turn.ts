import type { TranscriptTurn } from "../core/transcript.js";
import { SEARCH_PROJECTION_MAX_BYTES, sinkFor } from "./bounds.js";
import { afterOrphanClose, stripInjectedContext } from "./injected-context.js";
import {
  dropMarkerLines,
  omittedMarker,
  outputContentStart,
  previewWithin,
  TOOL_PREVIEW_TURN_BYTES,
  toolOutputText,
  writtenText,
} from "./tool-preview.js";
import {
  ERROR_LINE_MAX_CHARS,
  summaryLine,
  type Clean,
  toolCallLine,
  toolResultLine,
  toolResultStatus,
} from "./tool-summary.js";
import { DEFAULT_REDACTION, type Redaction } from "./redact/index.js";
import { searchTextOfProjection } from "./search-text.js";
import type { Projection, ProjectionMode } from "./types.js";
import { shortValue, utf8ByteLength } from "./utf8.js";

type TurnProjection = Projection & { indexable: boolean; isCompactionSummary: boolean };

/**
 * Projects one canonical transcript turn (Claude Code, Codex, opencode) into text: text kept,
 * thinking dropped, tool calls and results summarised with head-and-tail previews, images and
 * context shown in read mode only, all through one bounded, redacting ProjectionSink. What each
 * block becomes, and which turns are indexable: docs/projection.md. A search projection is
 * mostly the read one's text without the read-only lines it wrote (projectTranscriptTurnBoth).
 */
export function projectTranscriptTurn(
  turn: TranscriptTurn,
  mode: ProjectionMode,
  redaction?: Redaction,
): TurnProjection {
  if (mode === "read") return transcriptTurnPass(turn, "read", redaction);
  return projectTranscriptTurnBoth(turn, redaction).search;
}

/** One pass of a turn's blocks through a sink of `mode` (a search text not derived). */
export function transcriptTurnPass(
  turn: TranscriptTurn,
  mode: ProjectionMode,
  redaction?: Redaction,
): TurnProjection {
  return turnPass(turn, mode, redaction).projection;
}

/** A pass, and how many read-only lines it wrote (read mode: searchFromRead drops them). */
function turnPass(
  turn: TranscriptTurn,
  mode: ProjectionMode,
  redaction?: Redaction,
): { projection: TurnProjection; readOnlyLines: number } {
  const sink = sinkFor(mode, redaction);
  let readOnlyLines = 0;
  // Summary lines cut values short: secrets go before the cut, as the sink cannot find half of one.
  const policy = redaction ?? DEFAULT_REDACTION;
  const clean: Clean = policy.enabled ? (s) => policy.redact(s) : (s) => s;
  const summary = turn.isCompactionSummary === true;
  const stripOut = {
    text: (s: string, start: number, end: number) => sink.write(s, start, end),
    boundary: () => sink.newline(),
  };
  const line = (text: string) => {
    if (!text) return;
    sink.newline();
    sink.write(text);
    sink.newline();
  };
  /** A line only read mode writes, counted. */
  const readOnlyLine = (text: string) => {
    if (mode !== "read") return;
    line(text);
    readOnlyLines += 1;
  };
  let budget = TOOL_PREVIEW_TURN_BYTES;
  /**
   * A head-and-tail preview of `text.slice(from)`; tool output loses its injected spans. The
   * marker between head and tail is read-only (dropMarkerLines).
   */
  const preview = (text: string, from: number, output: boolean) => {
    const p = previewWithin(text, from, budget);
    if (!p) return;
    budget -= p.bytes;
    const piece = (s: string) => {
      const t = mode === "search" ? dropMarkerLines(s) : s;
      if (output) stripInjectedContext(t, stripOut);
      else sink.write(t);
    };
    sink.newline();
    piece(p.head);
    if (p.omitted) {
      if (mode === "read") readOnlyLine(omittedMarker(p.omitted));
      else sink.newline();
      piece(output ? p.tail.slice(afterOrphanClose(p.tail)) : p.tail);
    }
    sink.newline();
  };

  const blocks = turn.blocks;
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    switch (block.type) {
      case "text": {
        if (turn.role === "context" && !summary) {
          readOnlyLine("[context]");
        } else if (turn.role === "tool") {
          preview(block.text, outputContentStart(block.text), true);
        } else if (turn.role === "assistant") {
          sink.write(block.text);
        } else {
          const command = stripInjectedContext(block.text, stripOut);
          line(command);
        }
        sink.newline();
        break;
      }
      case "thinking":
        break;
      case "tool_call": {
        line(toolCallLine(block.name, block.input, clean));
        const next = blocks[i + 1];
        if (next?.type === "tool_result" && !toolResultStatus(next, clean).isError) {
          const written = writtenText(block.name, block.input);
          if (written !== undefined) preview(written, 0, false);
        }
        break;
      }
      case "tool_result": {
        const status = toolResultStatus(block, clean);
        // An error's line is searched; a success's `[result: … ok]` is read-only.
        if (status.isError) line(toolResultLine(block, mode, status));
        else readOnlyLine(toolResultLine(block, mode, status));
        const output = toolOutputText(block.output, status.isError);
        if (output) {
          const from = status.isError
            ? afterShownLine(output.text, output.from, status.firstLine, clean)
            : output.from;
          preview(output.text, from, true);
        }
        break;
      }
      case "image":
        if (mode === "read") {
          const media = block.mediaType !== undefined ? shortValue(block.mediaType, 60) : "";
          readOnlyLine(media ? `[image: ${media}]` : "[image]");
        }
        break;
      case "context":
        if (mode === "read") {
          const label = shortValue(block.label, 80);
          readOnlyLine(label ? `[context: ${label}]` : "[context]");
        }
        break;
    }
  }

  const finished = sink.finish();
  const speech = turn.role === "user" || turn.role === "assistant" || turn.role === "tool";
  return {
    projection: {
      ...finished,
      indexable: finished.text !== "" && (speech || summary),
      isCompactionSummary: summary,
    },
    readOnlyLines,
  };
}

/**
 * Both projections of a turn. The search text is the read text without the lines only a read
 * view holds (search-text.ts) whenever the read projection is complete, the lines of that shape
 * in it are the ones the pass wrote, and the text fits the search bound: the same text a search
 * pass gives but for blank lines where a preview's marker stood (0.14 % of tool turns on the
 * demo corpus). Indexing needs both projections of every record; turns with tool results (a
 * third of the demo corpus's) then cost one pass instead of two, which was a tenth of a
 * backfill's CPU. Other turns take a search pass of their own: longer ones (with the search
 * bound's head and tail), and those whose content holds a line shaped like a read-only one
 * (LoCoMo's image captions, `[image: …]` on a line of their own).
 */
export function projectTranscriptTurnBoth(
  turn: TranscriptTurn,
  redaction?: Redaction,
): {
  search: TurnProjection;
  read: TurnProjection;
  /** True when the search text is searchTextFromRead(read.text), so a writer stores it once unchecked. */
  searchFromRead: boolean;
} {
  const { projection: read, readOnlyLines } = turnPass(turn, "read", redaction);
  const derived = searchFromRead(read, readOnlyLines);
  return {
    search: derived ?? transcriptTurnPass(turn, "search", redaction),
    read,
    searchFromRead: derived !== null,
  };
}

/**
 * The search projection a complete read projection gives, or null when it must be its own pass:
 * `readOnlyLines` lines the pass wrote, which must be all the read text holds of that shape.
 */
function searchFromRead(read: TurnProjection, readOnlyLines: number): TurnProjection | null {
  if (read.truncated) return null;
  const text = searchTextOfProjection(read.text, readOnlyLines);
  if (text === null || !fitsSearchBound(text)) return null;
  return text === read.text ? read : { ...read, text, indexable: text !== "" && read.indexable };
}

/**
 * Where an error's output preview starts: after its first line when the error summary already
 * shows that line whole, else at `from`.
 */
function afterShownLine(text: string, from: number, shown: string, clean: Clean): number {
  if (!shown || shown.endsWith("…")) return from;
  let eol = text.indexOf("\n", from);
  if (eol < 0) eol = text.length;
  if (eol - from > ERROR_LINE_MAX_CHARS * 4) return from;
  return summaryLine(text.slice(from, eol), clean) === shown ? eol + 1 : from;
}

/** A UTF-16 code unit is at most 3 UTF-8 bytes, so short texts need no byte count. */
function fitsSearchBound(text: string): boolean {
  return (
    text.length * 3 <= SEARCH_PROJECTION_MAX_BYTES || utf8ByteLength(text) <= SEARCH_PROJECTION_MAX_BYTES
  );
}
