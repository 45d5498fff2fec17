import type { TranscriptTurn } from "../core/transcript.js";
import { boundsFor, ProjectionSink, SEARCH_PROJECTION_MAX_BYTES } from "./bounds.js";
import { stripInjectedContext } from "./injected-context.js";
import { toolCallLine, toolResultLine } from "./tool-summary.js";
import type { Projection, ProjectionMode } from "./types.js";
import { shortValue, utf8ByteLength } from "./utf8.js";

/**
 * Projects one canonical transcript turn (Claude Code, Codex, opencode) into text.
 *
 * Blocks:
 * - text: kept. In user and system turns, injected spans (system reminders, slash-command
 *   wrappers, environment / AGENTS.md blocks...) are removed first (injected-context.ts). In a
 *   `context` turn, text is injected context (below). In a `tool` turn, text is tool output and
 *   is dropped.
 * - thinking: dropped.
 * - tool_call: `[tool: Name — command / paths / patterns]` (tool-summary.ts).
 * - tool_result: search mode: an error summary only; read mode: also `[result: ok]`.
 * - image: never indexed; read mode shows `[image: media/type]`.
 * - context: never indexed; read mode shows `[context: label]`.
 *
 * `indexable` is false for `context` and `system` turns and for empty projections: the indexer
 * keeps those for reads but never puts them in the search index. A compaction summary is
 * high-signal text whatever the role its source gave it: its text is kept, it is indexable when
 * non-empty, and it is flagged.
 */
export function projectTranscriptTurn(
  turn: TranscriptTurn,
  mode: ProjectionMode,
): Projection & { indexable: boolean; isCompactionSummary: boolean } {
  const sink = new ProjectionSink(boundsFor(mode));
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

  for (const block of turn.blocks) {
    switch (block.type) {
      case "text": {
        if (turn.role === "context" && !summary) {
          if (mode === "read") line("[context]");
        } else if (turn.role === "tool") {
          // Tool output carried as text: never indexed or returned.
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
      case "tool_call":
        line(toolCallLine(block.name, block.input));
        break;
      case "tool_result":
        line(toolResultLine(block, mode));
        break;
      case "image":
        if (mode === "read") {
          const media = block.mediaType !== undefined ? shortValue(block.mediaType, 60) : "";
          line(media ? `[image: ${media}]` : "[image]");
        }
        break;
      case "context":
        if (mode === "read") {
          const label = shortValue(block.label, 80);
          line(label ? `[context: ${label}]` : "[context]");
        }
        break;
    }
  }

  const projection = sink.finish();
  const speech = turn.role === "user" || turn.role === "assistant" || turn.role === "tool";
  return {
    ...projection,
    indexable: projection.text !== "" && (speech || summary),
    isCompactionSummary: summary,
  };
}

type TurnProjection = ReturnType<typeof projectTranscriptTurn>;

/**
 * Both projections of a turn, in one pass when they must be equal: no block that may render
 * only in read mode (a tool result, whose `[result: ok]` is read-only; an image; an
 * injected-context label or turn) and the read text complete within the search bound, so the
 * same normaliser gives the same text. Indexing needs both for every record; most turns then
 * cost one pass instead of two.
 */
export function projectTranscriptTurnBoth(turn: TranscriptTurn): {
  search: TurnProjection;
  read: TurnProjection;
} {
  const read = projectTranscriptTurn(turn, "read");
  if (!read.truncated && fitsSearchBound(read.text) && !hasReadOnlyBlocks(turn))
    return { search: read, read };
  return { search: projectTranscriptTurn(turn, "search"), read };
}

/** A UTF-16 code unit is at most 3 UTF-8 bytes, so short texts need no byte count. */
function fitsSearchBound(text: string): boolean {
  return (
    text.length * 3 <= SEARCH_PROJECTION_MAX_BYTES || utf8ByteLength(text) <= SEARCH_PROJECTION_MAX_BYTES
  );
}

function hasReadOnlyBlocks(turn: TranscriptTurn): boolean {
  const summary = turn.isCompactionSummary === true;
  for (const block of turn.blocks) {
    if (block.type === "image" || block.type === "context" || block.type === "tool_result") return true;
    if (block.type === "text" && turn.role === "context" && !summary) return true;
  }
  return false;
}
