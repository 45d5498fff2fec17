import { describe, expect, it } from "vitest";
import { tempHistoryStores } from "../../test/helpers/temp-store.js";
import { compileRedaction, PROJECTION_VERSION, searchTextFromRead } from "../projection/index.js";
import { RedactionConfig } from "../projection/redact/config.js";
import { documentBody, RECORD_TEXT_COLUMN } from "../store/document-text.js";
import { redactKeptText } from "./redact-kept.js";

const CONVERSATION = "claude:3a1e0c55-5a5e-4c1d-9e0f-0d1e2f3a4b5c";

describe("the kept-text redaction sweep", () => {
  const openStore = tempHistoryStores("recall-redact-kept-");

  it("keeps a document's searched text as its FTS row holds it when only its record's read text changes", async () => {
    const { db } = await openStore();
    // A read-only line (dropped from the searched text) and the line after it: a pattern that
    // spans both changes the read text, while the searched text alone matches nothing.
    const read = "[result: Bash ok]\nsecret-4f1c deploy heron";
    const searched = searchTextFromRead(read);
    expect(searched).toBe("secret-4f1c deploy heron");
    const redaction = compileRedaction(
      RedactionConfig.parse({ patterns: [{ name: "spanning", pattern: "ok\\]\\nsecret-\\w+" }] }),
    );
    expect(redaction.redact(searched)).toBe(searched);
    expect(redaction.redact(read)).not.toBe(read);

    db.prepare(
      `INSERT INTO recall_conversations (id, source, agent, kind) VALUES (?, 'claude-code', 'claude', 'transcript')`,
    ).run(CONVERSATION);
    const record = db
      .prepare(
        `INSERT INTO recall_record_rows (conversation_ref, ordinal, record_key, at, role, kind, text)
         VALUES ((SELECT ref FROM recall_conversations WHERE id = ?), 0, 'u1', 1000, 'assistant', 'transcript', ?)`,
      )
      .run(CONVERSATION, read).lastInsertRowid;
    // As the writer stores it: body '' stands for the record's read text, the FTS row written apart.
    const document = db
      .prepare(
        `INSERT INTO recall_documents (source, source_key, kind, agent, at, conversation, role, body,
           projection_version, fts_deferred, record)
         VALUES ('claude-code', 'u1', 'transcript', 'claude', 1000, ?, 'assistant', '', ?, 1, ?)`,
      )
      .run(CONVERSATION, PROJECTION_VERSION, record).lastInsertRowid;
    db.prepare("INSERT INTO recall_fts (rowid, title, body) VALUES (?, '', ?)").run(document, searched);

    const result = await redactKeptText(db, redaction);
    expect(result).toEqual({ rewritten: 1, complete: true });
    const recordText = db.prepare("SELECT text FROM recall_records WHERE id = ?").pluck().get(record);
    expect(recordText).toBe("[result: Bash [redacted:spanning] deploy heron");
    const row = db
      .prepare(`SELECT d.body, ${RECORD_TEXT_COLUMN} FROM recall_documents d WHERE d.id = ?`)
      .get(document) as { body: string; recordText: string | null };
    expect(documentBody(row)).toBe(searched);
    const found = db.prepare("SELECT rowid FROM recall_fts WHERE recall_fts MATCH 'heron'").pluck().all();
    expect(found).toEqual([Number(document)]);
  });
});
