import { ingestBatch } from "../../src/indexer/ingest.js";
import type { DocumentKind } from "../../src/core/kinds.js";
import type { Db } from "../../src/store/open.js";
import { emptyBatch, type ConversationRef, type SourceRecord } from "../../src/sources/types.js";

/** One document to put in an index, through the real ingest path (projection included). */
export interface SeedDoc {
  key: string;
  text: string;
  at: number;
  kind?: DocumentKind;
  agent?: string;
  source?: string;
  project?: string | null;
  session?: string | null;
  conversation?: string;
  job?: string | null;
  run?: string | null;
  message?: string | null;
  cursor?: string | null;
  hitId?: string;
  role?: "user" | "assistant";
  /** The conversation's title (every document of a conversation carries it). */
  title?: string | null;
}

/** Writes the documents (and any session aliases) in one ingest batch. */
export function seedDocuments(
  db: Db,
  docs: SeedDoc[],
  aliases: { alias: string; session: string }[] = [],
  now = Date.now(),
): void {
  const batch = emptyBatch();
  for (const d of docs) {
    const source = d.source ?? "test";
    const conversation: ConversationRef = {
      id: d.conversation ?? `${source}:${d.session ?? d.key}`,
      source,
      agent: d.agent ?? "claude",
      kind: d.kind ?? "transcript",
      project: d.project ?? null,
      session: d.session ?? null,
      parent: null,
      title: d.title ?? null,
    };
    const record: SourceRecord = {
      sourceKey: d.key,
      hitId: d.hitId ?? `transcript:${conversation.agent}:${d.session ?? "none"}:${d.key}`,
      conversation,
      at: d.at,
      role: d.role ?? "user",
      kind: d.kind ?? "transcript",
      content: {
        type: "turn",
        turn: {
          role: d.role ?? "user",
          blocks: [{ type: "text", text: d.text }],
          isCompactionSummary: false,
        },
      },
      cursor: d.cursor ?? null,
      message: d.message ?? null,
      job: d.job ?? null,
      run: d.run ?? null,
    };
    batch.records.push(record);
  }
  for (const a of aliases) batch.aliases.push({ ...a, source: "test" });
  ingestBatch(db, batch, { source: "test", projectionVersion: 1, now });
}
