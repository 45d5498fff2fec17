/**
 * Helpers for tool results as the CLIs write them: exit codes buried in output headers,
 * and content arrays mixing text with images.
 */
import { isRecord, str } from "./json.js";
import { parseDataUrl } from "./binary.js";

const EXIT_PATTERNS = [
  /^(?:[^\n]*\n){0,6}Process exited with code (-?\d+)/, // Codex exec_command header ("Chunk ID … Wall time … Process exited …")
  /^\s*Exit code:? (-?\d+)/, // Claude Bash errors, older Codex shell output
];

/** The exit code a tool output reports in its header, if any. */
export function parseExitCode(output: string): number | undefined {
  const head = output.length > 1000 ? output.slice(0, 1000) : output;
  for (const pattern of EXIT_PATTERNS) {
    const match = pattern.exec(head);
    if (match?.[1] !== undefined) {
      const code = Number(match[1]);
      if (Number.isSafeInteger(code)) return code;
    }
  }
  return undefined;
}

export interface SplitContent {
  /** Text items joined by newlines. */
  text: string;
  /** One media type (or undefined) per image-like item; their data is never kept. */
  images: (string | undefined)[];
  /** Items that were neither text nor image. */
  other: unknown[];
}

const TEXT_TYPES = new Set(["text", "input_text", "output_text", "inputText", "outputText", "Text"]);
const IMAGE_TYPES = new Set(["image", "input_image", "inputImage", "image_url", "document", "file"]);

/**
 * Splits a content array (Claude tool_result content, Codex function output items,
 * opencode v2 tool content) into text, images and the rest.
 */
export function splitContentItems(items: readonly unknown[]): SplitContent {
  const texts: string[] = [];
  const images: (string | undefined)[] = [];
  const other: unknown[] = [];
  for (const item of items) {
    if (typeof item === "string") {
      texts.push(item);
      continue;
    }
    if (!isRecord(item)) continue;
    const type = str(item["type"]) ?? "";
    if (TEXT_TYPES.has(type) && typeof item["text"] === "string") {
      texts.push(item["text"]);
    } else if (IMAGE_TYPES.has(type)) {
      images.push(imageMediaType(item));
    } else {
      other.push(item);
    }
  }
  return { text: texts.join("\n"), images, other };
}

/** The media type an image-like content item declares, without reading its data. */
export function imageMediaType(item: Record<string, unknown>): string | undefined {
  const source = isRecord(item["source"]) ? item["source"] : undefined;
  const direct =
    str(source?.["media_type"]) ??
    str(item["media_type"]) ??
    str(item["mediaType"]) ??
    str(item["mimeType"]) ??
    str(item["mime"]);
  if (direct) return direct;
  const url = str(item["image_url"]) ?? str(item["url"]) ?? str(source?.["url"]);
  return url ? parseDataUrl(url)?.mediaType : undefined;
}
