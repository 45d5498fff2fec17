/**
 * Every file under ../shared/fixtures/real/ copied into a temporary HOME (one per CLI
 * variant: the two opencode databases share a path), indexed, and found again by search.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sessionsForAlias } from "../src/search/session-aliases.js";
import { REAL_FIXTURES, sharedAvailable } from "./helpers/shared.js";
import { copyHome, createHarness, fixtureHomes, type Harness } from "./sources-harness.js";
import { documentRows, useDocumentText } from "./helpers/document-text.js";
import { filesUnder, sha } from "./helpers/real-more.js";

const available = sharedAvailable("fixtures/real");

describe.skipIf(!available)("real CLI fixtures, indexed from a temporary HOME", () => {
  let h: Harness | null = null;
  afterEach(() => {
    h?.close();
    h = null;
  });

  const indexFixture = async (variant: string): Promise<Harness> => {
    const home = path.join(REAL_FIXTURES, variant, "home");
    expect(fixtureHomes(REAL_FIXTURES), variant).toContain(home);
    h = await createHarness();
    copyHome(home, h.home);
    const before = new Map(filesUnder(h.home).map((f) => [f, sha(f)]));
    h.index();
    // Nothing in a CLI's folders is written, renamed or repaired (a -shm beside a WAL
    // database is the one accepted side effect).
    const after = filesUnder(h.home).filter((f) => !f.endsWith("-shm"));
    expect(after).toEqual([...before.keys()]);
    for (const f of after) expect(sha(f), f).toBe(before.get(f));
    return h;
  };

  it("covers every fixture file", () => {
    const homes = fixtureHomes(REAL_FIXTURES);
    const covered = homes.flatMap((home) => filesUnder(home));
    const all = filesUnder(REAL_FIXTURES).filter((f) => f.includes(`${path.sep}home${path.sep}`));
    expect(covered.sort()).toEqual(all);
    expect(homes.length).toBe(6);
  });

  it("Claude Code (2.1.284 real binary and real user sessions)", async () => {
    const h = await indexFixture("claude-code");
    const prompt = h.search("run echo fixture please");
    expect(prompt.map((x) => x.id)).toContain(
      "transcript:claude:33cc15ab-fb10-4624-8cd8-c1baa189d2cd:2ae54f4a-4758-4ab6-a31f-60a8ccfc2624",
    );
    const hit = prompt.find((x) => x.id.endsWith("2ae54f4a-4758-4ab6-a31f-60a8ccfc2624"))!;
    expect(hit).toMatchObject({
      kind: "transcript",
      agent: "claude",
      session: "33cc15ab-fb10-4624-8cd8-c1baa189d2cd",
      conversation: "claude:33cc15ab-fb10-4624-8cd8-c1baa189d2cd",
      project: "/work/proj",
      message: null,
    });
    expect(Number(hit.cursor)).toBeGreaterThan(0);
    // The cursor is the byte offset of the record's line.
    const file = path.join(h.home, ".claude/projects/-work-proj/33cc15ab-fb10-4624-8cd8-c1baa189d2cd.jsonl");
    const line = readFileSync(file).subarray(Number(hit.cursor)).toString("utf8").split("\n")[0]!;
    expect(JSON.parse(line).uuid).toBe("2ae54f4a-4758-4ab6-a31f-60a8ccfc2624");

    expect(h.search("command printed fixture")[0]?.conversation).toBe(
      "claude:33cc15ab-fb10-4624-8cd8-c1baa189d2cd",
    );
    expect(h.search("tentative").some((x) => x.session === "67a8478e-78dc-44ab-82ea-f65c8ead85f6")).toBe(
      true,
    );
    expect(h.search("Employee class").some((x) => x.session === "982581eb-41b9-46da-86c1-ac34168117a8")).toBe(
      true,
    );
    // The fake model reused msg_1 without a requestId: two turns stay two documents.
    expect(
      h.count(
        "SELECT count(*) FROM recall_documents WHERE session = ? AND role = 'assistant'",
        "33cc15ab-fb10-4624-8cd8-c1baa189d2cd",
      ),
    ).toBe(2);
    // Model and branch are retained with the records and conversation.
    const conv = h.store.db
      .prepare("SELECT model, branch, title FROM recall_conversations WHERE id = ?")
      .get("claude:33cc15ab-fb10-4624-8cd8-c1baa189d2cd") as { model: string; branch: string };
    expect(conv.branch).toBe("HEAD");
    expect(conv.model).toBeTruthy();
    // A file with only metadata lines and a summary whose leaf uuid is in no file here: the
    // summary names that other session, so it neither titles nor aliases this one.
    const summary = "Debugging Complex Web App Authentication and State Management";
    const medium = h.store.db
      .prepare("SELECT title FROM recall_conversations WHERE id = 'claude:medium-conversation'")
      .get() as { title: string | null } | undefined;
    expect(medium?.title ?? null).toBeNull();
    expect(sessionsForAlias(h.store.db, summary)).toEqual([summary]);
    // Projects are never basenames.
    const projects = h.store.db.prepare("SELECT DISTINCT project FROM recall_documents").all() as {
      project: string;
    }[];
    for (const p of projects) expect(p.project.startsWith("/")).toBe(true);
  });

  it("Claude Code coverage shapes: subagent linked to its parent, compaction summary flagged", async () => {
    const h = await indexFixture(path.join("claude-code", "coverage-synthetic"));
    const parent = "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f";
    const sub = h.search("TODO comments");
    const hit = sub.find((x) => x.conversation === `claude:${parent}/agent-a0ad4f44468bdf20d`);
    expect(hit).toBeDefined();
    expect(hit!.session).toBe(parent);
    const row = h.store.db
      .prepare("SELECT parent, title FROM recall_conversations WHERE id = ?")
      .get(`claude:${parent}/agent-a0ad4f44468bdf20d`) as { parent: string; title: string | null };
    expect(row.parent).toBe(`claude:${parent}`);
    expect(row.title).toBe("general-purpose");
    // The session filter finds the parent's and the subagent's turns.
    const inSession = h.search("subagent", { sessions: [parent] });
    expect(inSession.length).toBeGreaterThan(0);
    expect(h.search("TODO", { sessions: [parent] }).length).toBeGreaterThan(0);
    useDocumentText(h.store.db);
    const summary = h.store.db
      .prepare(
        "SELECT is_compaction_summary AS c FROM recall_document_text WHERE body LIKE 'Summary of prior context%'",
      )
      .get() as { c: number };
    expect(summary.c).toBe(1);
    // Attachments and reminders are retained for reads but never indexed.
    expect(h.count("SELECT count(*) FROM recall_documents WHERE role = 'context'")).toBe(0);
    expect(h.count("SELECT count(*) FROM recall_records WHERE role = 'context'")).toBeGreaterThan(0);
  });

  it("Codex 0.158 (item_completed shapes) and 0.146 coverage shapes", async () => {
    let h = await indexFixture("codex");
    const thread = "01a0f21c-5c40-7f72-9aa9-ef0b43570680";
    const prompt = h.search("run echo fixture please");
    expect(prompt).toHaveLength(1);
    expect(prompt[0]).toMatchObject({
      agent: "codex",
      session: thread,
      conversation: `codex:${thread}`,
      project: "/work/proj",
    });
    expect(prompt[0]!.id).toBe(`transcript:codex:${thread}:${prompt[0]!.cursor}`);
    const file = path.join(
      h.home,
      ".codex/sessions/2026/09/30",
      `rollout-2026-09-30T08-39-00-${thread}.jsonl`,
    );
    const line = readFileSync(file).subarray(Number(prompt[0]!.cursor)).toString("utf8").split("\n")[0]!;
    expect(line).toContain("run echo fixture please");
    expect(h.search("command printed fixture")).toHaveLength(1);
    const model = h.store.db
      .prepare("SELECT model FROM recall_conversations WHERE id = ?")
      .get(`codex:${thread}`) as {
      model: string;
    };
    expect(model.model).toBeTruthy();
    // Injected context is retained with role context, never indexed.
    expect(h.count("SELECT count(*) FROM recall_documents WHERE role = 'context'")).toBe(0);
    h.close();

    h = await indexFixture(path.join("codex", "coverage-synthetic"));
    expect(h.search("List the files").length).toBeGreaterThan(0);
    // Each Codex document comes from exactly one layer: no two documents with the same text in one turn.
    const seen = new Set<string>();
    const dupes = documentRows<{ at: number }>(h.store.db, "d.at", "WHERE d.role IN ('user', 'assistant')")
      .filter((d) => !d.body.startsWith("["))
      .filter((d) => seen.size === seen.add(`${d.at}\u0000${d.body}`).size);
    expect(dupes).toEqual([]);
  });

  it("opencode 2.0.26 (session_v2 / session_message), child session linked through parent_id", async () => {
    const h = await indexFixture(path.join("opencode", "v2-2.0.26"));
    const hits = h.search("USE A TOOL to print hi");
    expect(hits.length).toBeGreaterThan(0);
    expect(hits[0]).toMatchObject({ agent: "opencode", project: "/home/dev/proj" });
    expect(hits[0]!.id).toBe(`transcript:opencode:${hits[0]!.session}:${hits[0]!.cursor}`);
    expect(hits[0]!.cursor).toMatch(/^msg_/);
    const child = h.store.db
      .prepare("SELECT parent FROM recall_conversations WHERE id = 'opencode:ses_ee23fe0f4ffeylWZL6V350JpvY'")
      .get() as { parent: string };
    expect(child.parent).toBe("opencode:ses_ee23fe1e7ffeeiMs3y3TW987xd");
    expect(h.search("subagent spawned by another session")[0]?.session).toBe(
      "ses_ee23fe0f4ffeylWZL6V350JpvY",
    );
    // The parent session id names its child sessions for the session filter.
    expect(sessionsForAlias(h.store.db, "ses_ee23fe1e7ffeeiMs3y3TW987xd")).toContain(
      "ses_ee23fe0f4ffeylWZL6V350JpvY",
    );
    expect(h.count("SELECT count(*) FROM recall_documents WHERE role = 'context'")).toBe(0);
  });

  it("opencode 1.15.10 upgraded to 2.0.26: v2 read where it has rows, nothing counted twice", async () => {
    const h = await indexFixture(path.join("opencode", "v1-1.15.10-upgraded-to-2.0.26"));
    expect(h.search("Continue this in v2").length).toBe(1);
    expect(h.search("USE A TOOL to print hi").length).toBe(1);
    expect(h.search("USE A TOOL in v2").length).toBe(1);
    expect(
      h.count(
        "SELECT count(*) FROM (SELECT source_key FROM recall_documents GROUP BY source_key HAVING count(*) > 1)",
      ),
    ).toBe(0);
    const messages = h.count("SELECT count(*) FROM recall_records WHERE conversation LIKE 'opencode:%'");
    const db = h.store.db;
    // Every message id of session_message appears once among the retained records (v2 is authoritative).
    const { default: Database } = await import("better-sqlite3");
    const source = new Database(path.join(h.home, ".local/share/opencode/opencode.db"), { readonly: true });
    const v2 = source
      .prepare(
        "SELECT count(*) n FROM session_message WHERE type NOT IN ('idle', 'agent-switched', 'model-switched')",
      )
      .get() as {
      n: number;
    };
    source.close();
    expect(messages).toBeLessThanOrEqual(v2.n);
    expect(db.prepare("SELECT count(DISTINCT conversation) n FROM recall_records").get()).toEqual({ n: 2 });
  });
});
