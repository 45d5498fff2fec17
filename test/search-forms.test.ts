/**
 * Issue #29's query rules, through the real tools over real indexes: word forms both ways in both
 * tools (an exact form ranked first), identifiers matched as phrases with no relaxed hit carried
 * by one part, CJK words inside sentences, and what a hit says it is (role, title).
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attachChatSearch, type ChatSearch } from "../src/app/attach-chat-search.js";
import { PROJECTION_VERSION } from "../src/projection/index.js";
import { openHistoryStore, type HistoryStore } from "../src/store/history-store.js";
import { runTool } from "../src/tools/run.js";
import type { SearchChatsOutput } from "../src/tools/search-chats.js";
import { createSearchHistoryTool, type SearchHistoryOutput } from "../src/tools/search-history.js";
import { createDyadDb } from "./helpers/dyad.js";
import { seedDocuments, type SeedDoc } from "./helpers/seed.js";
import { tempDir } from "./helpers/tmp.js";

const T0 = Date.UTC(2026, 0, 5);
/** Pairs of forms: each text holds one form; the query of either form must find both. */
const FORMS: [string, string, string, string][] = [
  ["decision", "decisions", "the gateway decision was final", "three gateway decisions were final"],
  ["policy", "policies", "the retention policy covers backups", "both retention policies cover backups"],
  ["table", "tables", "the tenant table grew", "the tenant tables grew"],
  ["deploy", "deploying", "we deploy the gateway on fridays", "deploying the gateway failed twice"],
  ["index", "indexing", "the archive index is rebuilt", "indexing the archive is slow"],
];
const CJK_TEXT = "検索結果に古いメッセージが表示されません";

const historyDocs: SeedDoc[] = [
  ...FORMS.flatMap(([a, b, textA, textB], i) => [
    { key: `${a}-1`, text: textA, at: T0 + i * 10, session: `s-${a}-1`, title: `About ${a}` },
    { key: `${b}-2`, text: textB, at: T0 + i * 10 + 1, session: `s-${b}-2`, title: null },
  ]),
  {
    key: "secret-adjacent",
    text: "set hunter2-PLANTED-db-password on staging",
    at: T0 + 100,
    session: "s-id",
  },
  {
    key: "secret-scattered",
    text: "the db password was planted by hunter2 on staging",
    at: T0 + 101,
    session: "s-id2",
  },
  { key: "noise", text: "we planted tomatoes in the garden", at: T0 + 102, session: "s-noise" },
  { key: "rotate", text: "rotate the signing keys monthly", at: T0 + 103, session: "s-rotate" },
  { key: "cjk", text: CJK_TEXT, at: T0 + 200, session: "s-cjk", title: "日本語のセッション" },
  { key: "cjk-scattered", text: "結果を検索しました", at: T0 + 201, session: "s-cjk2" },
  { key: "reply", text: "the gateway verdict stands", at: T0 + 300, session: "s-reply", role: "assistant" },
];

describe("search_history query rules", () => {
  let store: HistoryStore;
  let cleanup = () => {};
  beforeAll(async () => {
    const t = tempDir("recall-forms-");
    cleanup = t.cleanup;
    store = await openHistoryStore({
      home: path.join(t.dir, "recall"),
      projectionVersion: PROJECTION_VERSION,
    });
    seedDocuments(store.db, historyDocs);
  });
  afterAll(() => {
    store?.close();
    cleanup();
  });
  const search = async (query: string, limit = 10) =>
    JSON.parse(
      await runTool(createSearchHistoryTool(store.db, store.engine), { query, limit }, {}),
    ) as SearchHistoryOutput;
  const keys = (out: SearchHistoryOutput) => out.hits.map((h) => h.id.split(":").at(-1));

  it.each(FORMS)("finds %s and %s from either form, the exact form first", async (a, b) => {
    for (const [query, first, second] of [
      [a, `${a}-1`, `${b}-2`],
      [b, `${b}-2`, `${a}-1`],
    ] as const) {
      const out = await search(query);
      const strict = out.hits.filter((h) => h.relaxed !== true);
      expect(strict.map((h) => h.id.split(":").at(-1)).slice(0, 2)).toEqual([first, second]);
    }
  });

  it("matches an identifier as a phrase first, and never lets one of its parts carry a relaxed hit", async () => {
    const exact = await search("hunter2-PLANTED-db-password");
    expect(keys(exact)).toEqual(["secret-adjacent", "secret-scattered"]);
    const mixed = await search("rotate hunter2-PLANTED-db-password");
    expect(mixed.hits.every((h) => h.relaxed === true)).toBe(true);
    expect(keys(mixed)).toContain("rotate");
    expect(keys(mixed)).toContain("secret-adjacent");
    // "planted" alone is one generic part of the identifier.
    expect(keys(mixed)).not.toContain("noise");
    expect(keys(await search("planted tomatoes"))).toContain("noise");
  });

  it("finds a CJK word inside a sentence, as a phrase, and shows the text unchanged", async () => {
    for (const word of ["検索結果", "メッセージ", "表示"]) {
      const out = await search(word);
      expect(keys(out)).toEqual(["cjk"]);
      expect(out.hits[0]!.snippet).toBe(CJK_TEXT);
    }
    // The same characters in another order are another word.
    expect(keys(await search("結果を検索"))).toEqual(["cjk-scattered"]);
  });

  it("says what each hit is: its role and its conversation's title", async () => {
    const out = await search("gateway");
    const byKey = new Map(out.hits.map((h) => [h.id.split(":").at(-1), h]));
    expect(byKey.get("decision-1")).toMatchObject({ role: "user", title: "About decision" });
    expect(byKey.get("decisions-2")).toMatchObject({ role: "user", title: null });
    expect(byKey.get("reply")).toMatchObject({ role: "assistant", title: null });
    expect((await search("メッセージ")).hits[0]!.title).toBe("日本語のセッション");
    // A CJK word of the title finds its messages too (titles are searched as bodies are).
    expect(keys(await search("日本語"))).toEqual(["cjk"]);
  });

  it("leaves stopwords and question words out of both passes while other words remain", async () => {
    const out = await search("what did we decide about the retention policies?");
    expect(keys(out).slice(0, 2)).toEqual(["policies-2", "policy-1"]);
    // A query of stopwords only still searches them.
    expect((await search("the")).hits.length).toBeGreaterThan(0);
  });
});

describe("search_chats word forms and CJK", () => {
  let chat: ChatSearch;
  let db: { close(): void } | undefined;
  let cleanup = () => {};
  const messageOf = new Map<number, string>();
  let app = 0;
  beforeAll(async () => {
    const t = tempDir("recall-forms-chat-");
    cleanup = t.cleanup;
    const f = createDyadDb(t.dir);
    db = f.db;
    app = f.app("forms");
    FORMS.forEach(([a, b, textA, textB]) => {
      messageOf.set(f.message(f.chat(app, `chat ${a}`), "user", textA), `${a}-1`);
      messageOf.set(f.message(f.chat(app, `chat ${b}`), "user", textB), `${b}-2`);
    });
    messageOf.set(f.message(f.chat(app, "日本語のチャット"), "user", CJK_TEXT), "cjk");
    chat = await attachChatSearch(f.db, { file: f.file });
    await chat.indexer.drain();
  });
  afterAll(() => {
    db?.close();
    cleanup();
  });
  const results = async (query: string) => {
    const tool = chat.tools.find((t) => t.name === "search_chats")!;
    return (JSON.parse(await runTool(tool, { query, limit: 10 }, { appId: app })) as SearchChatsOutput)
      .results;
  };
  const search = async (query: string) =>
    (await results(query)).flatMap((r) => r.matches.map((m) => messageOf.get(m.message_id)));

  it.each(FORMS)("finds %s and %s from either form", async (a, b) => {
    for (const query of [a, b])
      expect(await search(query)).toEqual(expect.arrayContaining([`${a}-1`, `${b}-2`]));
  });

  it("finds a CJK word inside a sentence", async () => {
    expect(await search("メッセージ")).toEqual(["cjk"]);
    expect(await search("検索結果")).toEqual(["cjk"]);
    const [byTitle] = await results("日本語");
    expect(byTitle!.title).toBe("日本語のチャット");
    expect(byTitle!.matches[0]!.excerpt).toBe(CJK_TEXT);
  });
});
