/**
 * Redaction: secrets found in projected text become `[redacted:<detector>]` (README "Secrets").
 * Pure functions; the projection's sink applies them to everything it produces.
 */
export { MARKER_PREFIX, redactionMarker, type Detector } from "./detector.js";
export {
  BUILT_IN_DETECTORS,
  BUILT_IN_DETECTOR_NAMES,
  DETECTORS_VERSION,
  LONG_KEY_PREFIXES,
} from "./detectors.js";
export {
  HIGH_ENTROPY_MIN_BITS,
  HIGH_ENTROPY_MIN_CHARS,
  looksLikeWords,
  looksRandom,
  WORDS_MAX_SWITCH_RATIO,
  WORDS_MIN_VOWEL_SHARE,
} from "./entropy.js";
export { SECRET_NAME_WORDS } from "./assignment.js";
export { DEFAULT_REDACTION, DEFAULT_REDACTION_CONFIG, compileRedaction, type Redaction } from "./policy.js";
