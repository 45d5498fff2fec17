import type { ProjectionMode } from "./types.js";
import { shortValue } from "./utf8.js";

/**
 * Concise, payload-free summaries of transcript tool calls and results.
 *
 * A call becomes `[tool: Name — detail — detail]` where the details come only from allowlisted
 * input keys: the command line (its first line, cut to COMMAND_MAX_CHARS), file paths, search
 * patterns, queries, URLs and short descriptions. File contents, edit strings, prompts and any
 * other key are never read here (written content is previewed apart, see tool-preview.ts). A
 * Codex `apply_patch` (free-form string, or a command or argument holding `*** Begin Patch`) is
 * reduced to the names of the files it touches.
 *
 * A result's summary line is `[error: Name exit 2 — first line]` for an error (both modes) and
 * `[result: Name ok]` for a success (read mode only); its output, and the content a write-like
 * call wrote, are previewed apart, head and tail only (tool-preview.ts).
 */

export const TOOL_DETAIL_MAX_CHARS = 200;
export const COMMAND_MAX_CHARS = 200;
export const ERROR_LINE_MAX_CHARS = 200;
const TOOL_NAME_MAX_CHARS = 80;
const MAX_PATCH_FILES = 20;
/** A JSON-string input (Codex arguments) longer than this is not parsed. */
export const MAX_JSON_INPUT_CHARS = 256 * 1024;

export const COMMAND_KEYS = ["command", "cmd"] as const;
/** Input keys shown after the command, in this order. */
export const TOOL_INPUT_KEYS: readonly string[] = [
  "file_path",
  "filePath",
  "notebook_path",
  "path",
  "pattern",
  "glob",
  "query",
  "url",
  "description",
  "subagent_type",
];
/** String inputs that may carry a Codex patch (opencode's patch tools call it `patchText`). */
export const PATCH_KEYS = ["input", "patch", "patchText"] as const;

export const PATCH_BEGIN = "*** Begin Patch";
const PATCH_FILE_PREFIXES = ["*** Update File: ", "*** Add File: ", "*** Delete File: ", "*** Move to: "];
const SHELLS = new Set(["bash", "sh", "zsh", "dash", "fish", "pwsh", "powershell", "cmd", "cmd.exe"]);

export function asObject(input: unknown): Record<string, unknown> | undefined {
  if (input !== null && typeof input === "object" && !Array.isArray(input))
    return input as Record<string, unknown>;
  if (typeof input === "string" && input.length <= MAX_JSON_INPUT_CHARS) {
    let k = 0;
    while (k < input.length && /\s/.test(input[k]!)) k++;
    if (input[k] !== "{") return undefined;
    try {
      const parsed: unknown = JSON.parse(input);
      if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
        return parsed as Record<string, unknown>;
      }
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** File names from a Codex patch (bounded scan; the patch body itself is never kept). */
export function patchFileNames(patch: string): string[] {
  const files: string[] = [];
  let pos = patch.indexOf("*** ");
  while (pos >= 0 && files.length < MAX_PATCH_FILES) {
    if (pos === 0 || patch.charCodeAt(pos - 1) === 10) {
      for (const prefix of PATCH_FILE_PREFIXES) {
        if (patch.startsWith(prefix, pos)) {
          const start = pos + prefix.length;
          let eol = patch.indexOf("\n", start);
          if (eol < 0) eol = patch.length;
          const name = shortValue(
            patch.slice(start, Math.min(eol, start + TOOL_DETAIL_MAX_CHARS * 4)),
            TOOL_DETAIL_MAX_CHARS,
          );
          if (name && !files.includes(name)) files.push(name);
          break;
        }
      }
    }
    pos = patch.indexOf("*** ", pos + 4);
  }
  return files;
}

export function commandText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === "string")) {
    const parts = value;
    const shell = parts[0]!.split(/[\\/]/).pop()!.toLowerCase();
    if (parts.length >= 3 && SHELLS.has(shell) && /^-\w*c$|^\/c$|^-command$/i.test(parts[1]!)) {
      return parts.slice(2).join(" ");
    }
    return parts.join(" ");
  }
  return undefined;
}

/** Redaction applied to a value before it is cut (shortValue); none by default. */
export type Clean = (text: string) => string;
const keep: Clean = (s) => s;

/** First line of a command, cut; "…" marks a cut or a dropped continuation. */
function commandLine(command: string, clean: Clean): string {
  const eol = command.indexOf("\n");
  const first = shortValue(eol < 0 ? command : command.slice(0, eol), COMMAND_MAX_CHARS, clean);
  const more = eol >= 0 && command.slice(eol, eol + 4096).trim() !== "";
  return more && !first.endsWith("…") ? `${first} …` : first;
}

function detailValue(value: unknown, clean: Clean): string | undefined {
  if (typeof value === "string") return shortValue(value, TOOL_DETAIL_MAX_CHARS, clean) || undefined;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/** `[tool: Name — detail — …]` for one tool call. */
export function toolCallLine(name: string, input: unknown, clean: Clean = keep): string {
  const label = shortValue(name, TOOL_NAME_MAX_CHARS) || "tool";
  const details: string[] = [];
  const pushPatch = (patch: string): boolean => {
    if (!patch.includes(PATCH_BEGIN)) return false;
    const files = patchFileNames(patch);
    details.push(files.length > 0 ? files.join(", ") : "patch");
    return true;
  };

  const obj = asObject(input);
  if (obj === undefined) {
    if (typeof input === "string") pushPatch(input);
  } else {
    for (const key of COMMAND_KEYS) {
      const command = commandText(obj[key]);
      if (command === undefined) continue;
      if (!pushPatch(command)) {
        const line = commandLine(command, clean);
        if (line) details.push(line);
      }
      break;
    }
    for (const key of PATCH_KEYS) {
      const value = obj[key];
      if (typeof value === "string" && pushPatch(value)) break;
    }
    for (const key of TOOL_INPUT_KEYS) {
      const value = detailValue(obj[key], clean);
      if (value !== undefined && !details.includes(value)) details.push(value);
    }
  }
  return details.length > 0 ? `[tool: ${label} — ${details.join(" — ")}]` : `[tool: ${label}]`;
}

/** Output keys in the order an error's text is looked for: what it complained about first. */
export const OUTPUT_TEXT_KEYS: readonly string[] = [
  "text",
  "content",
  "output",
  "stderr",
  "error",
  "message",
  "stdout",
  "aggregated_output",
  "result",
];

/** The first piece of text in a tool output (bounded walk; images and binary skipped). */
export function firstOutputText(output: unknown): string | undefined {
  return outputTextBy(output, OUTPUT_TEXT_KEYS, 0);
}

/**
 * The first non-blank text in a tool output, looking in object keys in `keys` order: at most 4
 * levels deep and 16 items per array; objects typed as images, audio, files or binary skipped.
 */
export function outputTextBy(output: unknown, keys: readonly string[], depth = 0): string | undefined {
  if (typeof output === "string") return output;
  if (typeof output === "number" || typeof output === "boolean") return String(output);
  if (depth >= 4 || output === null || typeof output !== "object") return undefined;
  if (Array.isArray(output)) {
    for (let k = 0; k < Math.min(output.length, 16); k++) {
      const text = outputTextBy(output[k], keys, depth + 1);
      if (text !== undefined && /\S/.test(text)) return text;
    }
    return undefined;
  }
  const obj = output as Record<string, unknown>;
  if (typeof obj.type === "string" && /image|audio|file|binary/i.test(obj.type)) return undefined;
  for (const key of keys) {
    const text = outputTextBy(obj[key], keys, depth + 1);
    if (text !== undefined && /\S/.test(text)) return text;
  }
  return undefined;
}

/** Codex shell output starts with a header ("Chunk ID", "Wall time", "Process exited with code N", "Output:"). */
const HEADER_LINE =
  /^(chunk id|wall time|process exited with code|exit code|original token count|total output lines|output)\b[^\n]*$/i;
const EXIT_IN_HEADER = /^(?:process exited with code|exit code:?)\s*(-?\d+)/i;
const SIMPLE_TAG = /<\/?[A-Za-z_][\w-]*>/g;

/** One output line as an error summary shows it: simple tags blanked, cut to ERROR_LINE_MAX_CHARS. */
export function summaryLine(line: string, clean: Clean = keep): string {
  return shortValue(line.trim().replace(SIMPLE_TAG, " "), ERROR_LINE_MAX_CHARS, clean);
}

interface OutputHead {
  firstLine: string;
  headerExit: number | undefined;
}

/** First meaningful line of an output (looks at most 32 lines / 16 KiB). */
export function outputHead(text: string, clean: Clean = keep): OutputHead {
  let headerExit: number | undefined;
  let pos = 0;
  for (let lineNo = 0; lineNo < 32 && pos < text.length && pos < 16 * 1024; lineNo++) {
    let eol = text.indexOf("\n", pos);
    if (eol < 0) eol = text.length;
    const raw = text.slice(pos, Math.min(eol, pos + ERROR_LINE_MAX_CHARS * 4));
    pos = eol + 1;
    const trimmed = raw.trim();
    if (trimmed === "") continue;
    if (HEADER_LINE.test(trimmed)) {
      const m = EXIT_IN_HEADER.exec(trimmed);
      if (m) headerExit = Number(m[1]);
      continue;
    }
    const line = summaryLine(trimmed, clean);
    if (line) return { firstLine: line, headerExit };
  }
  return { firstLine: "", headerExit };
}

export interface ToolResultInput {
  name?: string | undefined;
  isError?: boolean | undefined;
  exitCode?: number | null | undefined;
  output: unknown;
}

export interface ToolResultStatus {
  isError: boolean;
  /** The exit code given, else the one an output header reports. */
  exit: number | undefined;
  /** The output's first meaningful line (see outputHead). */
  firstLine: string;
}

/** Whether a result is an error, and its exit code and first line. */
export function toolResultStatus(result: ToolResultInput, clean: Clean = keep): ToolResultStatus {
  const text = firstOutputText(result.output);
  const head = text !== undefined ? outputHead(text, clean) : { firstLine: "", headerExit: undefined };
  const exit = typeof result.exitCode === "number" ? result.exitCode : head.headerExit;
  const isError = result.isError === true || (exit !== undefined && exit !== 0);
  return { isError, exit, firstLine: head.firstLine };
}

/**
 * The summary line of a tool result ("" when there is none): `[error: Name exit 2 — first
 * line]` in both modes, `[result: Name ok]` in read mode. The output itself is previewed apart
 * (tool-preview.ts).
 */
export function toolResultLine(
  result: ToolResultInput,
  mode: ProjectionMode,
  status: ToolResultStatus = toolResultStatus(result),
): string {
  const name = result.name !== undefined ? shortValue(result.name, TOOL_NAME_MAX_CHARS) : "";
  const { isError, exit, firstLine } = status;
  if (!isError) return mode === "read" ? `[result: ${name ? `${name} ` : ""}ok]` : "";
  const what = [name, exit !== undefined ? `exit ${exit}` : ""].filter((s) => s !== "").join(" ");
  return `[error${what ? `: ${what}` : ""}${firstLine ? ` — ${firstLine}` : ""}]`;
}
