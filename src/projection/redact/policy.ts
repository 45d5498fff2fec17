import type { RedactionConfig } from "./config.js";
import { regexDetector, type Detector } from "./detector.js";
import { BUILT_IN_DETECTORS, DETECTORS_VERSION, LONG_KEY_PREFIXES } from "./detectors.js";

/**
 * What the projection applies to every text it produces (bounds.ts, at a sink's finish): the
 * built-in detectors and config.json's own patterns and allow-list, or nothing when redaction
 * is off. (Its settings are config.json's `redaction`, whose schema is config.ts.)
 */
export interface Redaction {
  readonly enabled: boolean;
  /**
   * What produced the index's text: the detector set's version, on or off, and a hash of
   * config.json's patterns and allow-list. The index stores it; a different one rebuilds it as a
   * new projection version does (indexer/derived-versions.ts).
   */
  readonly fingerprint: string;
  /** `text` with every secret replaced by `[redacted:<detector>]`. */
  redact: (text: string) => string;
  /** Whether a base64-looking run holds the start of a provider key (bounds.ts keeps it for redact). */
  holdsKeyPrefix(run: string): boolean;
}

/** config.json's redaction settings when it says nothing. */
export const DEFAULT_REDACTION_CONFIG: RedactionConfig = { enabled: true, patterns: [], allow: [] };

export function compileRedaction(config: RedactionConfig = DEFAULT_REDACTION_CONFIG): Redaction {
  const custom = config.patterns.length > 0 || config.allow.length > 0;
  const fingerprint =
    `detectors-${DETECTORS_VERSION}` +
    (config.enabled ? "" : ":off") +
    (custom ? `:${hashText(JSON.stringify([config.patterns, config.allow]))}` : "");
  if (!config.enabled) {
    return { enabled: false, fingerprint, redact: (text) => text, holdsKeyPrefix: () => false };
  }
  const detectors: Detector[] = [
    // This machine's own formats first: a built-in detector must not take their matches apart.
    ...config.patterns.map((p) =>
      regexDetector({ name: p.name, pattern: new RegExp(p.pattern, `${p.flags}g`), wholeMatch: true }),
    ),
    ...BUILT_IN_DETECTORS,
  ];
  const allowed: ReadonlySet<string> = new Set(config.allow);
  return {
    enabled: true,
    fingerprint,
    redact: (text) => {
      let out = text;
      for (const detector of detectors) out = detector.redact(out, allowed);
      return out;
    },
    holdsKeyPrefix: (run) => LONG_KEY_PREFIXES.some((prefix) => run.includes(prefix)),
  };
}

/** The built-in detectors, on: what every projection applies unless told otherwise. */
export const DEFAULT_REDACTION: Redaction = compileRedaction();

/** 64-bit FNV-1a of a text, as 16 hex digits (a fingerprint, not a security measure). */
function hashText(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, "0");
}
