import type { Db } from "../store/open.js";
import { statement } from "../store/statements.js";

/** Where one source stands, as `recall index`, status and every search response report it. */
export interface SourceCoverage {
  source: string;
  /** Files (or databases and sessions) the source knows. */
  filesKnown: number;
  backlogFiles: number;
  backlogBytes: number;
  /** A first discovery sweep has completed. */
  discovered: boolean;
  /** Newest record time indexed for this source (epoch ms), or null. */
  indexedThrough: number | null;
  conversations: number;
  documents: number;
  oversized: number;
  malformed: number;
  skipped: number;
  /** Files found shrunk or rewritten (their earlier versions stay retained). */
  rewritten: number;
  /** Files or folders that could not be read; `unreadableFiles` names some of them. */
  unreadable: number;
  raw: {
    chunks: number;
    /** Retained bytes as read. */
    bytes: number;
    /** Retained bytes on disk (compressed): what the retention bound limits. */
    stored: number;
    prunedChunks: number;
    prunedBytes: number;
  };
}

const STATS = `SELECT source, oversized, malformed, skipped, rewritten, unreadable, raw_chunks, raw_bytes, raw_stored, pruned_chunks,
  pruned_bytes, files_known, backlog_files, backlog_bytes, discovered FROM recall_source_stats ORDER BY source`;
const CONVERSATIONS = `SELECT count(*) AS n, max(updated_at) AS through FROM recall_conversations WHERE source = ?`;
const DOCUMENTS = `SELECT count(*) AS n FROM recall_documents WHERE source = ?`;

interface StatsRow {
  source: string;
  oversized: number;
  malformed: number;
  skipped: number;
  rewritten: number;
  unreadable: number;
  raw_chunks: number;
  raw_bytes: number;
  raw_stored: number;
  pruned_chunks: number;
  pruned_bytes: number;
  files_known: number | null;
  backlog_files: number | null;
  backlog_bytes: number | null;
  discovered: number;
}

/** Coverage of every source that has written a batch (optionally only the named ones). */
export function sourceCoverage(db: Db, only?: readonly string[]): SourceCoverage[] {
  const rows = statement(db, STATS).all() as StatsRow[];
  return rows
    .filter((r) => !only || only.includes(r.source))
    .map((r) => {
      const conv = statement(db, CONVERSATIONS).get(r.source) as { n: number; through: number | null };
      const docs = statement(db, DOCUMENTS).get(r.source) as { n: number };
      return {
        source: r.source,
        filesKnown: r.files_known ?? 0,
        backlogFiles: r.backlog_files ?? 0,
        backlogBytes: r.backlog_bytes ?? 0,
        discovered: r.discovered === 1,
        indexedThrough: conv.through,
        conversations: conv.n,
        documents: docs.n,
        oversized: r.oversized,
        malformed: r.malformed,
        skipped: r.skipped,
        rewritten: r.rewritten,
        unreadable: r.unreadable,
        raw: {
          chunks: r.raw_chunks,
          bytes: r.raw_bytes,
          stored: r.raw_stored,
          prunedChunks: r.pruned_chunks,
          prunedBytes: r.pruned_bytes,
        },
      };
    });
}
