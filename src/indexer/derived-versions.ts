import { DEFAULT_REDACTION, type Redaction } from "../projection/index.js";
import { READERS_VERSION } from "../sources/version.js";
import type { Db } from "../store/open.js";
import { getMeta, setMeta } from "../store/meta.js";
import { statement } from "../store/statements.js";

/**
 * What built history.db's derived rows, kept in recall_meta: the projection version (the
 * documents' text, src/projection/version.ts), the redaction fingerprint (which detectors,
 * config.json patterns and allow-list redacted that text, or that redaction was off:
 * projection/redact/policy.ts) and the readers version (how the sources turned lines into
 * records, src/sources/version.ts).
 */
export const REDACTION_FINGERPRINT_KEY = "redaction_fingerprint";
const HAS_RECORDS = "SELECT 1 FROM recall_records LIMIT 1";

/**
 * What a rebuild must redo: "projection" resets every document and re-reads the sources;
 * "readers" only re-reads them (documents stay, and the re-read replaces or supersedes what an
 * older reader wrote); null: nothing.
 */
export type Staleness = "projection" | "readers" | null;

/** Older than this build, or unknown. A newer recall's index is left alone (no rebuild ping-pong). */
function older(db: Db, key: string, current: number): boolean {
  const stored = getMeta(db, key);
  return stored === undefined || !(Number(stored) >= current);
}

/**
 * Why this build must not write into the index, or null: a newer recall built it (a later
 * projection or readers version), and records this one wrote would be what that one rebuilt
 * the index to be rid of. Searching it is fine.
 */
export function writtenByNewer(db: Db, projectionVersion: number): string | null {
  const stored = (key: string) => Number(getMeta(db, key));
  const projection = stored("projection_version");
  const readers = stored("readers_version");
  if (!(projection > projectionVersion) && !(readers > READERS_VERSION)) return null;
  return (
    `history.db was built by a newer recall (projection ${projection}, readers ${readers}; this one has ` +
    `${projectionVersion} and ${READERS_VERSION}): it can search it but does not index into it; upgrade this recall`
  );
}

/** The readers version this build writes records with (an index without records gets it at once). */
export function noteReadersVersion(db: Db): void {
  setMeta(db, "readers_version", String(READERS_VERSION));
}

/** The redaction the index's text is written with (an index without records gets it at once). */
export function noteRedactionFingerprint(db: Db, redaction: Redaction = DEFAULT_REDACTION): void {
  setMeta(db, REDACTION_FINGERPRINT_KEY, redaction.fingerprint);
}

/**
 * The redaction fingerprint the index's text was written with. None stored: written before
 * fingerprints were (by this unreleased projection version's builds only, as every older
 * projection version rebuilds anyway), with the built-in detectors and no config.
 */
export function storedRedactionFingerprint(db: Db): string {
  return getMeta(db, REDACTION_FINGERPRINT_KEY) ?? DEFAULT_REDACTION.fingerprint;
}

/** After a complete rebuild: the versions the index now matches. */
export function noteDerivedVersions(
  db: Db,
  projectionVersion: number,
  redaction: Redaction = DEFAULT_REDACTION,
): void {
  setMeta(db, "projection_version", String(projectionVersion));
  noteRedactionFingerprint(db, redaction);
  noteReadersVersion(db);
}

/**
 * How stale the index is for this build. An index without records has nothing an older reader
 * wrote, nor text an earlier redaction wrote: its readers version and redaction fingerprint are
 * noted here (a write, so call it where the writer may write). Other redaction settings than
 * the index's text was written with (config.json changed, redaction turned off or on, a new
 * detector set) are a projection change: every text is rewritten.
 */
export function checkDerivedVersions(
  db: Db,
  projectionVersion: number,
  redaction: Redaction = DEFAULT_REDACTION,
): Staleness {
  if (older(db, "projection_version", projectionVersion)) return "projection";
  if (storedRedactionFingerprint(db) !== redaction.fingerprint) {
    if (statement(db, HAS_RECORDS).get() !== undefined) return "projection";
    noteRedactionFingerprint(db, redaction);
  }
  if (!older(db, "readers_version", READERS_VERSION)) return null;
  if (statement(db, HAS_RECORDS).get() !== undefined) return "readers";
  noteReadersVersion(db);
  return null;
}
