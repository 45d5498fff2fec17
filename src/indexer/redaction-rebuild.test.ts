import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fakeSecrets } from "../../test/helpers/fake-secrets.js";
import { tempDir } from "../../test/helpers/tmp.js";
import { BASE_TIME, claudeLine } from "../../test/sources-lines.js";
import { ConfigSchema } from "../config/schema.js";
import {
  compileRedaction,
  DEFAULT_REDACTION,
  PROJECTION_VERSION,
  type Redaction,
} from "../projection/index.js";
import { createSources } from "../sources/readers.js";
import { openHistoryStore, type HistoryStore } from "../store/history-store.js";
import { checkDerivedVersions, storedRedactionFingerprint } from "./derived-versions.js";
import { createIndexWorker } from "./worker.js";

const SESSION = "0e31c0de-0031-4a7b-8c9d-0e1f2a3b4c5d";
const OFF = compileRedaction({ enabled: false, patterns: [], allow: [] });
const token = fakeSecrets(4).find((s) => s.detector === "github-token")!.secret;

describe("redaction settings and the index", () => {
  let store: HistoryStore | null = null;
  let cleanup = () => {};
  afterEach(() => {
    store?.close();
    store = null;
    cleanup();
  });

  async function setup() {
    const t = tempDir("recall-redaction-rebuild-");
    cleanup = t.cleanup;
    const home = path.join(t.dir, "home");
    const file = path.join(home, ".claude", "projects", "-p", `${SESSION}.jsonl`);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(
      file,
      `${JSON.stringify({ type: "custom-title", customTitle: `token ${token}`, sessionId: SESSION })}\n` +
        claudeLine({ uuid: "u1", session: SESSION, text: `heron deploy with ${token}`, at: BASE_TIME }),
    );
    store = await openHistoryStore({
      home: path.join(t.dir, "recall"),
      projectionVersion: PROJECTION_VERSION,
    });
    const db = store.db;
    const config = ConfigSchema.parse({});
    const worker = (redaction: Redaction) =>
      createIndexWorker({
        db,
        createSources: () => createSources({ HOME: home }, config),
        projectionVersion: PROJECTION_VERSION,
        redaction,
      });
    /** Every text the index holds for the session: documents, records, its title. */
    const texts = () =>
      (
        db
          .prepare(
            `SELECT title || ' ' || body AS t FROM recall_documents
             UNION ALL SELECT text FROM recall_records UNION ALL SELECT coalesce(title, '') FROM recall_conversations`,
          )
          .all() as { t: string }[]
      ).map((r) => r.t);
    return { file, db, worker, texts };
  }

  it("notes the fingerprint a first index is written with, and rebuilds when it changes", async () => {
    const { db, worker, texts } = await setup();
    await worker(OFF).catchUp();
    expect(storedRedactionFingerprint(db)).toBe(OFF.fingerprint);
    expect(texts().some((t) => t.includes(token))).toBe(true);
    expect(checkDerivedVersions(db, PROJECTION_VERSION, OFF)).toBeNull();
    expect(checkDerivedVersions(db, PROJECTION_VERSION, DEFAULT_REDACTION)).toBe("projection");

    const result = await worker(DEFAULT_REDACTION).catchUp();
    expect(result.records).toBeGreaterThan(0);
    expect(storedRedactionFingerprint(db)).toBe(DEFAULT_REDACTION.fingerprint);
    expect(texts().some((t) => t.includes(token))).toBe(false);
    expect(texts().join("\n")).toContain("[redacted:github-token]");
  });

  it("redacts, once the rebuild is done, text it could not re-read (file and raw bytes gone)", async () => {
    const { file, db, worker, texts } = await setup();
    await worker(OFF).catchUp();
    // The CLI deleted the transcript and retention pruned its raw bytes: the history is kept.
    rmSync(file);
    db.prepare("DELETE FROM recall_raw_chunks").run();
    await worker(DEFAULT_REDACTION).catchUp();
    const all = texts();
    expect(all.join("\n")).toContain("heron deploy with [redacted:github-token]");
    expect(all.some((t) => t.includes(token))).toBe(false);
    const fts = db
      .prepare("SELECT count(*) AS n FROM recall_fts WHERE recall_fts MATCH ?")
      .get(`"${token.slice(4)}"`) as {
      n: number;
    };
    expect(fts.n).toBe(0);
    expect(storedRedactionFingerprint(db)).toBe(DEFAULT_REDACTION.fingerprint);
  });

  it("takes an index written before fingerprints were stored for the built-in detectors", async () => {
    const { db, worker } = await setup();
    await worker(DEFAULT_REDACTION).catchUp();
    db.prepare("DELETE FROM recall_meta WHERE key = 'redaction_fingerprint'").run();
    expect(checkDerivedVersions(db, PROJECTION_VERSION, DEFAULT_REDACTION)).toBeNull();
    expect(checkDerivedVersions(db, PROJECTION_VERSION, OFF)).toBe("projection");
  });
});
