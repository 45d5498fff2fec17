/**
 * Binary and opaque payloads never enter a transcript block: base64 images, `data:` URLs,
 * `encrypted_content`. Mappers keep raw tool inputs and outputs, so they pass them through
 * `scrubBinary` first; image blocks keep only their media type.
 */
import { isRecord } from "./json.js";

const DATA_URL_HEAD = /^data:([^;,]*)((?:;[^;,]*)*),/i;
/** `data:<mime>;base64,<payload>` inside a longer text. */
const EMBEDDED_DATA_URL =
  /data:([a-z0-9.+-]+\/[a-z0-9.+-]+)?(?:;[a-z0-9=.+-]+)*;base64,[A-Za-z0-9+/_=-]{16,}/gi;
/** `=` may sit mid-string when chunks were concatenated. */
const BASE64_ALPHABET = /^[A-Za-z0-9+/_=-]+$/;
/** Shortest bare string treated as base64 when nothing around it says "binary". */
export const BASE64_BLOB_MIN = 256;
const MAX_DEPTH = 64;
/** Keys whose values are opaque ciphertext or binary wherever they appear. */
const OPAQUE_KEYS = new Set(["encrypted_content", "encryptedContent"]);
const MIME_KEYS = ["media_type", "mediaType", "mimeType", "mime_type", "mime"];
const BINARY_VALUE_KEYS = ["data", "b64_json", "base64", "bytes", "blob"];

export interface DataUrl {
  mediaType?: string;
  base64: boolean;
}

/** Parses the head of a `data:` URL without touching its (possibly huge) payload. */
export function parseDataUrl(value: string): DataUrl | undefined {
  if (value.slice(0, 5).toLowerCase() !== "data:") return undefined;
  const head = DATA_URL_HEAD.exec(value.slice(0, 256));
  if (!head) return undefined;
  const mediaType = head[1] ? head[1].toLowerCase() : undefined;
  const params = (head[2] ?? "").toLowerCase();
  return { ...(mediaType ? { mediaType } : {}), base64: params.split(";").includes("base64") };
}

const BASE64_HEAD = /^[A-Za-z0-9+/_=\r\n-]*$/;

/** A long string made only of the base64 alphabet, with the letter mix random bytes produce. */
export function looksLikeBase64(value: string, minLength = BASE64_BLOB_MIN): boolean {
  if (value.length < minLength) return false;
  // Cheap rejection on the head first: multi-megabyte tool outputs fail within a few characters.
  if (!BASE64_HEAD.test(value.slice(0, 512))) return false;
  const compact = value.includes("\n") || value.includes("\r") ? value.replace(/[\r\n]/g, "") : value;
  if (compact.length < minLength || !BASE64_ALPHABET.test(compact)) return false;
  return /[A-Z]/.test(compact) && /[a-z]/.test(compact) && /[0-9]/.test(compact);
}

/** Replacement text for a dropped payload; short, and says what was there. */
export function omittedLabel(mediaType: string | undefined, length: number): string {
  return `[${mediaType ?? "binary"} data omitted, ${length} chars]`;
}

/** One string with data URLs and bare base64 replaced by short placeholders. */
export function scrubString(value: string): string {
  const dataUrl = parseDataUrl(value);
  if (dataUrl) return omittedLabel(dataUrl.mediaType, value.length);
  if (looksLikeBase64(value)) return omittedLabel(undefined, value.length);
  if (value.length < 40 || !value.includes("base64,")) return value;
  return value.replace(EMBEDDED_DATA_URL, (match: string, mime: string | undefined) =>
    omittedLabel(mime?.toLowerCase(), match.length),
  );
}

/**
 * A deep copy of a raw payload (tool input or output) with every binary or opaque value
 * replaced: data URLs, bare base64, `encrypted_content`, and the `data` of any object that
 * declares a media type or an image/document/audio type. Never throws; depth is capped.
 */
export function scrubBinary(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return scrubString(value);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return "[nested too deep]";
  if (Array.isArray(value)) return value.map((item) => scrubBinary(item, depth + 1));
  if (!isRecord(value)) return value;
  const mediaType = declaredMediaType(value);
  const binaryHolder = mediaType !== undefined || declaresBinaryType(value);
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (OPAQUE_KEYS.has(key)) {
      out[key] = typeof inner === "string" ? omittedLabel("encrypted", inner.length) : "[omitted]";
      continue;
    }
    if (binaryHolder && BINARY_VALUE_KEYS.includes(key) && typeof inner === "string") {
      out[key] = omittedLabel(mediaType, inner.length);
      continue;
    }
    if (key === "source" && isRecord(inner) && inner["type"] === "base64") {
      const { data, ...rest } = inner;
      out[key] = {
        ...(scrubBinary(rest, depth + 1) as object),
        data: omittedLabel(declaredMediaType(inner), typeof data === "string" ? data.length : 0),
      };
      continue;
    }
    out[key] = scrubBinary(inner, depth + 1);
  }
  return out;
}

function declaredMediaType(value: Record<string, unknown>): string | undefined {
  for (const key of MIME_KEYS) {
    const v = value[key];
    if (typeof v === "string" && v.length > 0) return v;
  }
  return undefined;
}

function declaresBinaryType(value: Record<string, unknown>): boolean {
  const type = value["type"];
  return typeof type === "string" && /image|document|audio|video|file|blob/i.test(type);
}
