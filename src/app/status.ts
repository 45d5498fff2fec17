import { writtenByNewer } from "../indexer/derived-versions.js";
import { PROJECTION_VERSION } from "../projection/index.js";
import type { Db } from "../store/open.js";

/**
 * The figures `recall status`, `recall index` and the dashboard report: coverage per source,
 * whether a rebuild runs, the index's health, and what the broker says about itself.
 */
export { askBroker } from "../indexer/broker.js";
export { sourceCoverage, type SourceCoverage } from "../indexer/coverage.js";
export { storedRedactionFingerprint } from "../indexer/derived-versions.js";
export { readCoverage, readPublishedCoverage, rebuildingNow } from "../store/coverage-row.js";

/** Why this build must not touch the index (a newer recall wrote it), or null. */
export function indexWrittenByNewer(db: Db): string | null {
  return writtenByNewer(db, PROJECTION_VERSION);
}
