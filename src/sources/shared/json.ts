/**
 * Small, total accessors for JSON of unknown shape. Source records change every few weeks,
 * so mappers narrow field by field and never throw: a wrong type reads as "absent".
 */

export type JsonObject = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

/** A non-empty string, else undefined. */
export function str(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/** Any string (empty allowed), else undefined. */
export function anyStr(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export function bool(value: unknown): boolean | undefined {
  return typeof value === "boolean" ? value : undefined;
}

export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function obj(value: unknown): JsonObject {
  return isRecord(value) ? value : {};
}

export type JsonParse = { ok: true; value: unknown } | { ok: false };

/** JSON.parse without throwing. */
export function parseJson(text: string): JsonParse {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Parses one JSONL line into an object; blank, torn or non-object lines give undefined. */
export function parseJsonObjectLine(line: string): JsonObject | undefined {
  const trimmed = line.trim();
  if (trimmed.length === 0 || trimmed[0] !== "{") return undefined;
  const parsed = parseJson(trimmed);
  return parsed.ok && isRecord(parsed.value) ? parsed.value : undefined;
}

/** A JSON column that may arrive as TEXT or already parsed. */
export function jsonColumn(value: unknown): JsonObject | undefined {
  if (isRecord(value)) return value;
  if (typeof value === "string") {
    const parsed = parseJson(value);
    return parsed.ok && isRecord(parsed.value) ? parsed.value : undefined;
  }
  if (value instanceof Uint8Array) return jsonColumn(new TextDecoder().decode(value));
  return undefined;
}
