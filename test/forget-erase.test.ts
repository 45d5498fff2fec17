/**
 * `recall forget` erases what it removes from recall's files, not only from its tables: after
 * a forget, no distinctive string of the forgotten session is left in history.db, its WAL or
 * the backups folder (issue #30, item 1).
 */
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { filesHolding } from "./helpers/leftovers.js";
import { createTranscriptHome, type TranscriptHome } from "./helpers/transcript-home.js";
import { BASE_TIME, claudeLine } from "./sources-lines.js";

const SECRET_SESSION = "5ec2e7aa-1b2c-4d3e-8f40-51a2b3c4d5e6";
const KEEP_SESSION = "6b0f1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b";

/**
 * Planted secrets of the kinds a red team found left behind, each unlike anything else indexed,
 * and words no redaction would touch (a redacting projection may keep the secrets out anyway).
 */
const PLANTED = [
  "quixoticzanzibarmarmalade7731",
  "flibbertigibbetlanthanum4417",
  "AKIAQ7PLANTEDX4Z2WJK",
  "wJalrXUtnFEMIK7MDENGbPxRfiCYplantedSecretKeyQ9",
  "ghp_Pl4ntedT0kenVv8Xq2Lm9Rt5Ws3Yz1Ab6Cd7Ef",
  "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCplantedPemBodyZq",
  "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkand0In0.c2lnbmF0dXJlcGxhbnRlZGp3dA",
  "hunter2-PLANTED-db-passw0rd-Kx7",
];

/** The planted strings as stored anywhere: as written, and as FTS5 keeps its tokens (folded). */
function needles(): Buffer[] {
  const out: Buffer[] = [];
  for (const secret of PLANTED) {
    out.push(Buffer.from(secret));
    for (const token of secret.toLowerCase().split(/[^a-z0-9]+/))
      if (token.length >= 12) out.push(Buffer.from(token));
  }
  return out;
}

/** The files under RECALL_HOME that still hold any planted string. */
const leftovers = (recallHome: string) => filesHolding(recallHome, needles());

describe("recall forget erases", () => {
  let h: TranscriptHome;
  afterEach(() => h?.cleanup());

  it("leaves no planted string of a forgotten session in history.db, its WAL or backups", () => {
    h = createTranscriptHome();
    const keep = path.join(h.claudeDir, `${KEEP_SESSION}.jsonl`);
    const secret = path.join(h.claudeDir, `${SECRET_SESSION}.jsonl`);
    let n = 0;
    const keepLines = (count: number) => {
      let out = "";
      for (let i = 0; i < count; i++, n++)
        out += claudeLine({
          uuid: `k-${n}`,
          session: KEEP_SESSION,
          role: n % 2 ? "assistant" : "user",
          text: `routine note ${n} about the deployment checklist and release calendar`,
          at: BASE_TIME + n * 1000,
        });
      return out;
    };
    const secretLines = (round: number) =>
      PLANTED.map((value, i) =>
        claudeLine({
          uuid: `s-${round}-${i}`,
          session: SECRET_SESSION,
          role: i % 2 ? "assistant" : "user",
          text: `round ${round}: the credential is ${value} keep it safe`,
          at: BASE_TIME + round * 100_000 + i,
        }),
      ).join("");
    // Indexed in rounds, the two sessions' rows interleave on the same pages and move between
    // them as pages split: the conditions under which deleted text used to survive.
    appendFileSync(keep, keepLines(400));
    appendFileSync(secret, secretLines(0));
    expect(h.run("index").status).toBe(0);
    for (let round = 1; round <= 4; round++) {
      appendFileSync(secret, secretLines(round));
      appendFileSync(keep, keepLines(300));
      expect(h.run("index").status).toBe(0);
    }
    // A migration's backup, as the migration executor names it: a whole copy of the index.
    const backups = path.join(h.recallHome, "backups");
    mkdirSync(backups, { recursive: true });
    copyFileSync(
      path.join(h.recallHome, "history.db"),
      path.join(backups, "history.db.v7.2026-01-01T00-00-00-000Z.bak"),
    );
    expect(leftovers(h.recallHome).length).toBeGreaterThan(0);

    const forgot = h.run("forget", "--session", SECRET_SESSION, "--yes", "--json");
    expect(forgot.stderr).toBe("");
    expect(forgot.status).toBe(0);
    expect(JSON.parse(forgot.stdout)).toMatchObject({ erased: { walTruncated: true, backupsRemoved: 1 } });
    const found = JSON.parse(h.run("search", "credential", "--json").stdout) as { hits: unknown[] };
    expect(found.hits).toEqual([]);
    expect(leftovers(h.recallHome)).toEqual([]);
    // What was kept is all still there.
    const kept = JSON.parse(h.run("search", "deployment checklist", "--json", "--limit", "5").stdout) as {
      hits: unknown[];
    };
    expect(kept.hits.length).toBe(5);
    if (existsSync(`${path.join(h.recallHome, "history.db")}-wal`))
      expect(readFileSync(`${path.join(h.recallHome, "history.db")}-wal`).length).toBe(0);
  });
});
