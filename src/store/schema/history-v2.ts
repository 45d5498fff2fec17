import type { Migration } from "../migrate.js";
import type { HistorySchemaContext } from "./history-v1.js";

/**
 * Agent-bridge sources (docs/bridge-store.md). A broadcast message is one document whose
 * sender and every recipient stay findable with the `session` filter: they are listed here,
 * deleted with their document. The partial index on job serves the `job` filter, which also
 * follows run documents to the CLI sessions their metadata names.
 */
export const historyV2: Migration<HistorySchemaContext> = {
  version: 2,
  name: "document participants and job index",
  up(db) {
    db.exec(`
      CREATE TABLE recall_document_participants (
        identity TEXT NOT NULL,
        document INTEGER NOT NULL REFERENCES recall_documents (id) ON DELETE CASCADE,
        PRIMARY KEY (identity, document)
      ) WITHOUT ROWID;
      CREATE INDEX recall_document_participants_document ON recall_document_participants (document);
      CREATE INDEX recall_documents_job ON recall_documents (job, kind) WHERE job IS NOT NULL;
    `);
  },
};
