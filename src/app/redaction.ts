/**
 * config.json `redaction`, compiled once for what a surface reads outside the index (an export,
 * the dashboard). Apart from recall.ts, which every command loads: the detectors are a command's
 * own cost, not a cold `recall search`'s.
 */
export { compileRedaction, type Redaction } from "../projection/index.js";
