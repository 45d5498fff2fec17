import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDyadDb, type DyadFixture } from "../../test/helpers/dyad.js";
import { tempDir } from "../../test/helpers/tmp.js";
import { RecallError } from "../core/errors.js";
import { backfill } from "../indexer/backfill.js";
import { PROJECTION_VERSION } from "../projection/index.js";
import { bindChatApp, type ChatAppBinding } from "../sources/dyad/apps.js";
import { DyadSource } from "../sources/dyad/source.js";
import { COVERAGE_STALE_MS, writeCoverage } from "../store/coverage-row.js";
import { openHistoryStore } from "../store/history-store.js";
import { runTool } from "../tools/run.js";
import type { SearchChatsOutput } from "../tools/search-chats.js";
import { createStandaloneChatTools } from "./chat-tools.js";

const isKind = (kind: string) => (e: unknown) => e instanceof RecallError && e.kind === kind;

describe("standalone chat tools (bound to the server's project)", () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  /**
   * Two Dyad-shaped databases whose apps and chats have the same ids: "mine" (bound) and
   * "theirs" (another source). Their message ids also collide with document ids in history.db.
   */
  const setup = async () => {
    const t = tempDir("recall-chat-tools-");
    const appsDir = path.join(t.dir, "apps");
    mkdirSync(path.join(appsDir, "mine", ".git"), { recursive: true });
    mkdirSync(path.join(appsDir, "theirs", ".git"), { recursive: true });
    const fill = (dir: string, appPath: string, words: string[]): DyadFixture & { chats: number[] } => {
      mkdirSync(dir, { recursive: true });
      const dyad = createDyadDb(dir);
      const app = Number(
        dyad.db.prepare("INSERT INTO apps (name, path) VALUES (?, ?)").run(appPath, appPath).lastInsertRowid,
      );
      const other = dyad.app("other");
      const chat = dyad.chat(app, `${appPath} chat`);
      const foreign = dyad.chat(other, "Not this app");
      dyad.message(chat, "user", "first question about the quokka migration");
      dyad.message(chat, "assistant", `we chose ${words.join(" ")} for the quokka migration`);
      dyad.message(foreign, "user", "quokka migration in another app");
      return { ...dyad, chats: [chat, foreign] };
    };
    const mine = fill(path.join(t.dir, "a"), "mine", ["sqlite", "triggers"]);
    const theirs = fill(path.join(t.dir, "b"), "theirs", ["postgres", "listeners"]);
    const store = await openHistoryStore({
      home: path.join(t.dir, "recall"),
      projectionVersion: PROJECTION_VERSION,
    });
    const sources = [
      new DyadSource({ name: "dyad", file: mine.file, appsDir }),
      new DyadSource({ name: "dyad-2", file: theirs.file, appsDir }),
    ];
    // Unrelated documents first, so document ids and message ids differ.
    store.db
      .prepare(
        `INSERT INTO recall_documents (source, source_key, own_hit_id, kind, agent, at, role, title, body, projection_version)
         VALUES ('x', 'k1', 'x:1', 'transcript', 'claude', 0, 'user', '', 'unrelated quokka', 1),
                ('x', 'k2', 'x:2', 'transcript', 'claude', 0, 'user', '', 'unrelated', 1)`,
      )
      .run();
    backfill(store.db, sources, {
      projectionVersion: PROJECTION_VERSION,
      clock: { now: () => Date.UTC(2026, 5, 1) },
      group: { records: 0, millis: 0 },
    });
    let binding: ChatAppBinding | null = null;
    const chatTools = createStandaloneChatTools(store.db, () => binding);
    cleanup = () => {
      chatTools.close();
      for (const s of sources) s.close();
      store.close();
      mine.db.close();
      theirs.db.close();
      t.cleanup();
    };
    const tool = (name: string) => chatTools.tools.find((x) => x.name === name)!;
    return {
      history: store.db,
      mine,
      appsDir,
      tool,
      bindTo: (project: string) => {
        binding = bindChatApp(
          [
            { name: "dyad", file: mine.file, appsDir },
            { name: "dyad-2", file: theirs.file, appsDir },
          ],
          project,
        );
        return binding;
      },
    };
  };

  it("lists both tools before any app is bound, and says clearly why they cannot answer", async () => {
    const s = await setup();
    expect([s.tool("search_chats").name, s.tool("read_chat").name]).toEqual(["search_chats", "read_chat"]);
    await expect(runTool(s.tool("search_chats"), { query: "quokka" }, {})).rejects.toSatisfy(
      isKind("Unavailable"),
    );
  });

  it("search_chats finds only the bound app's chats of the bound source, with real message ids", async () => {
    const s = await setup();
    expect(s.bindTo(path.join(s.appsDir, "mine"))).toMatchObject({ source: "dyad", appId: 1 });
    const out = JSON.parse(
      await runTool(s.tool("search_chats"), { query: "quokka migration" }, {}),
    ) as SearchChatsOutput;
    expect(out.results.map((r) => r.chat_id)).toEqual([s.mine.chats[0]]);
    const texts = out.results.flatMap((r) => r.matches.map((m) => m.excerpt)).join(" ");
    expect(texts).toContain("sqlite");
    expect(texts).not.toContain("postgres");
    const ids = out.results[0]!.matches.map((m) => m.message_id).sort();
    expect(ids).toEqual([1, 2]);
    expect(out.results[0]!.last_message_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    // The hit expands through read_chat against the Dyad database itself.
    const page = JSON.parse(
      await runTool(s.tool("read_chat"), { chat_id: s.mine.chats[0], around_message_id: 2 }, {}),
    ) as { messages: { text: string }[] };
    expect(page.messages.map((m) => m.text)).toEqual([
      "first question about the quokka migration",
      "we chose sqlite triggers for the quokka migration",
    ]);
    await expect(runTool(s.tool("read_chat"), { chat_id: s.mine.chats[1] }, {})).rejects.toSatisfy(
      isKind("NotFound"),
    );
  });

  it("says indexing until the bound source's published coverage is ready and fresh", async () => {
    const s = await setup();
    s.bindTo(path.join(s.appsDir, "mine"));
    const status = async () =>
      (JSON.parse(await runTool(s.tool("search_chats"), { query: "quokka" }, {})) as SearchChatsOutput)
        .index_status;
    // Nothing published for the source yet (its first poll has not run): not "ready".
    expect(await status()).toBe("indexing");
    const publish = (publishedAt: number) =>
      writeCoverage(s.history, {
        v: 1,
        publishedAt,
        writer: "broker",
        pid: process.pid,
        rebuilding: false,
        lastRun: null,
        sources: [
          {
            source: "dyad",
            indexing: false,
            indexedThrough: 0,
            backlog: 0,
            backlogBytes: 0,
            filesKnown: 1,
            discovered: true,
          },
        ],
      });
    publish(Date.now());
    expect(await status()).toBe("ready");
    publish(Date.now() - COVERAGE_STALE_MS - 1000); // no indexer has checked for a while
    expect(await status()).toBe("indexing");
  });

  it("the other project binds the other source: same ids, other documents", async () => {
    const s = await setup();
    expect(s.bindTo(path.join(s.appsDir, "theirs"))).toMatchObject({ source: "dyad-2", appId: 1 });
    const out = JSON.parse(
      await runTool(s.tool("search_chats"), { query: "quokka migration" }, {}),
    ) as SearchChatsOutput;
    const texts = out.results.flatMap((r) => r.matches.map((m) => m.excerpt)).join(" ");
    expect(texts).toContain("postgres");
    expect(texts).not.toContain("sqlite");
    expect(texts).not.toContain("another app");
  });
});
