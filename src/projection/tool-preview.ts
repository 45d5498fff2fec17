import {
  asObject,
  COMMAND_KEYS,
  commandText,
  OUTPUT_TEXT_KEYS,
  outputTextBy,
  PATCH_BEGIN,
  PATCH_KEYS,
} from "./tool-summary.js";
import { cutHeadToBytes, cutTailToBytes, utf8ByteLength } from "./utf8.js";

/**
 * Bounded head-and-tail previews of tool output and of the content an agent wrote to a file.
 *
 * A tool's output is often long (a build log, a test run, a file read) and what matters sits at
 * its ends: the command's first lines and first errors at the head, the summary line and exit
 * status at the tail. A preview keeps the first TOOL_PREVIEW_HEAD_BYTES (cut at a line break when
 * one is near) and the last TOOL_PREVIEW_TAIL_BYTES, with a marker line `[… N lines omitted …]`
 * between them in read mode (a bare line break in search mode); the middle is never kept. Text is found in structured outputs by a bounded walk
 * (outputTextBy: images and binary skipped), and Codex's shell header ("Chunk ID", "Wall time",
 * "Process exited with code", "Output:") is dropped first.
 *
 * Written content: a write-like tool call (Write/write `content`, Edit/edit `new_string` /
 * `newString`, MultiEdit `edits[].new_string`, a Codex patch's added lines, wherever the patch
 * sits) is previewed the same way. Nothing here writes text anywhere: the projection passes
 * previews through its ProjectionSink, whose normalisation and byte bound apply as to any text.
 */

/** Head of a preview: 2 KiB holds ~30-40 lines of a log or a file's opening (imports, title, first section). */
export const TOOL_PREVIEW_HEAD_BYTES = 2 * 1024;
/** Tail of a preview: 1 KiB holds the last ~15 lines, where builds and test runs print their summary. */
export const TOOL_PREVIEW_TAIL_BYTES = 1024;
/** A text at most this much longer than head + tail is kept whole: cutting would save no more than the marker costs. */
export const TOOL_PREVIEW_SLACK_BYTES = 64;
/**
 * All previews of one turn together: 8 KiB, half of SEARCH_PROJECTION_MAX_BYTES, so a turn with
 * several tool results (opencode keeps a message's tools in the message) still leaves its own
 * text inside the search bound. Past it, later previews shrink, then are left out.
 */
export const TOOL_PREVIEW_TURN_BYTES = 8 * 1024;
/** A preview smaller than this (a nearly spent turn budget) is left out: a few lines say little. */
export const TOOL_PREVIEW_MIN_BYTES = 256;
/** Omitted lines are counted in at most this many characters of the middle (past it: "over N lines"). */
export const TOOL_PREVIEW_COUNT_CHARS = 1 << 20;
/** A patch is read for added lines in at most this many characters. */
export const WRITTEN_SCAN_MAX_CHARS = 4 << 20;
/** MultiEdit: at most this many edits are read. */
const MAX_EDITS = 64;
/** Header lines looked at before an output's content starts. */
const MAX_HEADER_LINES = 32;
const MAX_HEADER_CHARS = 16 * 1024;

export interface OmittedPart {
  /** Line breaks in the omitted middle (counted in its first TOOL_PREVIEW_COUNT_CHARS characters). */
  lines: number;
  /** UTF-16 code units omitted. */
  chars: number;
  /** The middle was longer than TOOL_PREVIEW_COUNT_CHARS: `lines` is a lower bound. */
  capped: boolean;
}

export interface TextPreview {
  /** The text's start, or all of it when nothing was omitted. */
  head: string;
  /** The text's end ("" when nothing was omitted). */
  tail: string;
  omitted: OmittedPart | null;
  /** UTF-8 bytes of head and tail. */
  bytes: number;
}

/** The marker line between head and tail. */
export function omittedMarker(omitted: OmittedPart): string {
  if (omitted.lines > 0) {
    const plural = omitted.lines === 1 && !omitted.capped ? "line" : "lines";
    return `[… ${omitted.capped ? "over " : ""}${omitted.lines} ${plural} omitted …]`;
  }
  return `[… ${omitted.chars} characters omitted …]`;
}

/** A marker line as omittedMarker writes it. */
const MARKER_LINE = /^\[… (?:over )?\d+ lines? omitted …\]$|^\[… \d+ characters omitted …\]$/gm;

/**
 * `text` without marker lines: the search projection leaves the marker out (its count would
 * make every long output a hit for a number, its words for "lines" and "omitted"), including
 * the one inside a preview a source carried as written content.
 */
export function dropMarkerLines(text: string): string {
  return text.includes("omitted …]") ? text.replace(MARKER_LINE, "") : text;
}

/** A preview as one string: head, marker line, tail. */
export function previewText(preview: TextPreview): string {
  return preview.omitted
    ? `${preview.head}\n${omittedMarker(preview.omitted)}\n${preview.tail}`
    : preview.head;
}

/**
 * The head-and-tail preview of `text.slice(from)` (undefined when it is blank). Work is bounded
 * whatever the text's size: the two ends are cut by bytes without reading the middle, which is
 * only scanned (at most TOOL_PREVIEW_COUNT_CHARS) to count its lines.
 */
export function headTailPreview(
  text: string,
  from = 0,
  headBytes = TOOL_PREVIEW_HEAD_BYTES,
  tailBytes = TOOL_PREVIEW_TAIL_BYTES,
): TextPreview | undefined {
  const n = text.length;
  if (from >= n || isBlankAtEnds(text, from)) return undefined;
  const keep = headBytes + tailBytes + TOOL_PREVIEW_SLACK_BYTES;
  // A UTF-16 unit is at least one UTF-8 byte: longer texts never fit.
  if (n - from <= keep) {
    const whole = text.slice(from);
    const bytes = utf8ByteLength(whole);
    if (bytes <= keep) return { head: whole, tail: "", omitted: null, bytes };
  }

  let head = cutHeadToBytes(text.slice(from, from + headBytes + 1), headBytes);
  let headEnd = from + head.length;
  const headBreak = head.lastIndexOf("\n");
  if (headBreak >= head.length / 2) {
    head = head.slice(0, headBreak);
    headEnd = from + headBreak + 1;
  }

  let tail = cutTailToBytes(text.slice(Math.max(headEnd, n - tailBytes - 1)), tailBytes);
  let tailStart = n - tail.length;
  const tailBreak = tail.indexOf("\n");
  if (tailBreak >= 0 && tailBreak < tail.length / 2) {
    tail = tail.slice(tailBreak + 1);
    tailStart += tailBreak + 1;
  }

  const countEnd = Math.min(tailStart, headEnd + TOOL_PREVIEW_COUNT_CHARS);
  let lines = 0;
  for (let p = text.indexOf("\n", headEnd); p >= 0 && p < countEnd; p = text.indexOf("\n", p + 1)) lines++;
  return {
    head,
    tail,
    omitted: { lines, chars: tailStart - headEnd, capped: countEnd < tailStart },
    bytes: utf8ByteLength(head) + utf8ByteLength(tail),
  };
}

/** Blank where a preview would look (its first and last 4 KiB): nothing worth showing. */
function isBlankAtEnds(text: string, from: number): boolean {
  const window = 4096;
  if (/\S/.test(text.slice(from, from + window))) return false;
  return !/\S/.test(text.slice(Math.max(from, text.length - window)));
}

/**
 * The preview of `text.slice(from)` within `budget` bytes: the full preview when the budget
 * allows it, a smaller one (two thirds head, one third tail) when it does not, none under
 * TOOL_PREVIEW_MIN_BYTES.
 */
export function previewWithin(text: string, from: number, budget: number): TextPreview | undefined {
  if (budget >= TOOL_PREVIEW_HEAD_BYTES + TOOL_PREVIEW_TAIL_BYTES + TOOL_PREVIEW_SLACK_BYTES)
    return headTailPreview(text, from);
  const room = budget - TOOL_PREVIEW_SLACK_BYTES;
  if (room < TOOL_PREVIEW_MIN_BYTES) return undefined;
  const headBytes = Math.floor((room * 2) / 3);
  return headTailPreview(text, from, headBytes, room - headBytes);
}

// ---------------------------------------------------------------- tool output

/** Output keys in the order a success's text is looked for (what the tool printed first). */
const SUCCESS_KEYS = [
  "text",
  "content",
  "output",
  "stdout",
  "aggregated_output",
  "result",
  "message",
  "stderr",
  "error",
];
/** An error's text: what it complained about first (the error summary's own order). */
const ERROR_KEYS = OUTPUT_TEXT_KEYS;

/** A header line of a shell output (Codex exec_command, older shell tools, Claude Bash errors). */
const OUTPUT_HEADER =
  /^(?:chunk id:|wall time:|process exited with code\b|exit code:?\s*-?\d+$|original token count:|total output lines:|output:$)/i;

/** Where an output's content starts: after its leading blank and header lines. */
export function outputContentStart(text: string): number {
  let pos = 0;
  for (let line = 0; line < MAX_HEADER_LINES && pos < text.length && pos < MAX_HEADER_CHARS; line++) {
    let eol = text.indexOf("\n", pos);
    if (eol < 0) eol = text.length;
    const trimmed = text.slice(pos, Math.min(eol, pos + 400)).trim();
    if (trimmed !== "" && !OUTPUT_HEADER.test(trimmed)) return pos;
    pos = eol + 1;
  }
  return Math.min(pos, text.length);
}

/** The text of a tool output to preview and where its content starts (undefined: nothing to show). */
export function toolOutputText(
  output: unknown,
  isError: boolean,
): { text: string; from: number } | undefined {
  const text = outputTextBy(output, isError ? ERROR_KEYS : SUCCESS_KEYS);
  if (text === undefined) return undefined;
  const from = outputContentStart(text);
  return from < text.length ? { text, from } : undefined;
}

// ---------------------------------------------------------------- written content

/** Tools that write a whole file: their content keys. */
const WRITE_TOOLS = new Set(["write", "write_file", "writefile", "create_file", "file_write", "apply_patch"]);
const WRITE_KEYS = ["content", "file_text", "contents"] as const;
/** Tools that replace part of a file: their new-text keys. */
const EDIT_TOOLS = new Set([
  "edit",
  "edit_file",
  "multiedit",
  "multi_edit",
  "str_replace",
  "str_replace_editor",
  "str_replace_based_edit_tool",
  "notebookedit",
  "notebook_edit",
  "replace",
]);
const EDIT_KEYS = ["new_string", "newString", "new_str", "new_source", "newSource", "insert_text"] as const;
const EDIT_LIST_KEYS = ["new_string", "newString", "new_str"] as const;
const PATCH_END = "*** End Patch";

/** A tool's own name: lower-cased, without an MCP `mcp__server__` prefix. */
function baseName(name: string): string {
  const lower = name.toLowerCase();
  const cut = lower.lastIndexOf("__");
  return cut >= 0 ? lower.slice(cut + 2) : lower;
}

/** The Codex-style patch (`*** Begin Patch`) a tool input carries, wherever it sits. */
export function patchIn(input: unknown): string | undefined {
  if (typeof input === "string") return input.includes(PATCH_BEGIN) ? input : undefined;
  const obj = asObject(input);
  if (!obj) return undefined;
  for (const key of COMMAND_KEYS) {
    const command = commandText(obj[key]);
    if (command?.includes(PATCH_BEGIN)) return command;
  }
  for (const key of PATCH_KEYS) {
    const value = obj[key];
    if (typeof value === "string" && value.includes(PATCH_BEGIN)) return value;
  }
  return undefined;
}

/** The lines a patch adds (`+` lines, prefix removed), in order; read at most WRITTEN_SCAN_MAX_CHARS. */
export function patchAddedText(patch: string): string | undefined {
  const begin = patch.indexOf(PATCH_BEGIN);
  if (begin < 0) return undefined;
  const end = Math.min(patch.length, begin + WRITTEN_SCAN_MAX_CHARS);
  const added: string[] = [];
  let pos = begin;
  while (pos < end) {
    let eol = patch.indexOf("\n", pos);
    if (eol < 0 || eol > end) eol = end;
    if (patch.charCodeAt(pos) === 43 /* + */ && !patch.startsWith("+++ ", pos)) {
      added.push(patch.slice(pos + 1, patch.charCodeAt(eol - 1) === 13 ? eol - 1 : eol));
    } else if (patch.startsWith(PATCH_END, pos)) {
      break;
    }
    pos = eol + 1;
  }
  return added.length > 0 ? added.join("\n") : undefined;
}

/**
 * The content a write-like tool call writes (undefined for any other call): a patch's added
 * lines (any tool whose input carries a Codex patch), a whole file's content (Write, write,
 * create_file...), or an edit's new text (Edit, edit, MultiEdit's edits, NotebookEdit; an
 * edit's `content` too, which is what a source puts there when it carries a preview from a
 * call to its result). Old strings, original files and every other input are never read.
 */
export function writtenText(name: string, input: unknown): string | undefined {
  const patch = patchIn(input);
  if (patch !== undefined) return patchAddedText(patch);
  const tool = baseName(name);
  const isWrite = WRITE_TOOLS.has(tool);
  if (!isWrite && !EDIT_TOOLS.has(tool)) return undefined;
  const obj = asObject(input);
  if (!obj) return undefined;
  for (const key of isWrite ? [...WRITE_KEYS, ...EDIT_KEYS] : [...EDIT_KEYS, "content"]) {
    const value = obj[key];
    if (typeof value === "string" && /\S/.test(value.slice(0, 4096))) return value;
  }
  const edits = obj["edits"];
  if (!Array.isArray(edits)) return undefined;
  const parts: string[] = [];
  let chars = 0;
  for (const edit of edits.slice(0, MAX_EDITS)) {
    const e = asObject(edit);
    const value = e ? EDIT_LIST_KEYS.map((k) => e[k]).find((v) => typeof v === "string") : undefined;
    if (typeof value !== "string" || value === "") continue;
    if (chars + value.length > WRITTEN_SCAN_MAX_CHARS) break;
    parts.push(value);
    chars += value.length;
  }
  return parts.length > 0 ? parts.join("\n") : undefined;
}

/**
 * The bounded preview of what a write-like call wrote, as one string (head, marker line, tail),
 * for a source that must carry it from a call to its result (Codex: the parser's state holds it
 * between lines). A preview given back to writtenText as `content` of an `apply_patch` call comes
 * out unchanged: it fits within head + tail + slack.
 */
export function writtenPreviewText(name: string, input: unknown): string | undefined {
  const text = writtenText(name, input);
  const preview = text !== undefined ? headTailPreview(text) : undefined;
  return preview ? previewText(preview) : undefined;
}
