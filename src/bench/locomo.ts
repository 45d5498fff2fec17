import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import { systemClock } from "../core/clock.js";
import { ConfigSchema } from "../config/schema.js";
import { DYAD_DDL } from "../demo/index.js";
import { attachChatSearch } from "../app/attach-chat-search.js";
import { backfill } from "../indexer/backfill.js";
import { PROJECTION_VERSION } from "../projection/index.js";
import { createSources } from "../sources/readers.js";
import { openHistoryStore } from "../store/history-store.js";
import { openDatabase } from "../store/open.js";
import { runTool } from "../tools/run.js";
import type { SearchHistoryOutput } from "../tools/search-history.js";
import type { SearchChatsOutput } from "../tools/search-chats.js";
import { scratchDir } from "./corpus.js";
import { connectRecallMcp } from "./recall-mcp.js";
import { fig, median, round, timeAsync, type Figure } from "./measure.js";

/**
 * Relevance on LoCoMo (../shared/benchmarks/locomo, see SOURCE.md there): each conversation is
 * indexed on its own through the normal ingestion paths — as a Dyad-shaped chat database (one
 * chat per session titled with its date, one message per turn "Speaker: text" plus any image
 * caption, speaker_a as the user) searched with search_chats, and as Claude Code transcripts (one
 * session file per LoCoMo session) searched with search_history through a real `recall mcp`
 * process — and every question is asked verbatim. Nothing from the data set is written outside the scratch folder.
 */

interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

interface Qa {
  question: string;
  evidence?: string[];
  category: number;
}

interface Conversation {
  name: string;
  speakerA: string;
  sessions: { n: number; date: string; at: number; turns: Turn[] }[];
  qa: Qa[];
}

export const LOCOMO_CATEGORIES: Record<number, string> = {
  1: "multi-hop",
  2: "temporal",
  3: "open-domain",
  4: "single-hop",
  5: "adversarial",
};

/** Hit figures of one surface, at session or turn level. */
export interface HitFigures {
  hitAt1: Figure;
  hitAt5: Figure;
  mrr: Figure;
}

export interface LocomoGroup {
  questions: Figure;
  session: HitFigures;
  turn: HitFigures;
  medianSearch: Figure;
}

export interface LocomoSurface {
  total: LocomoGroup;
  categories: Record<string, LocomoGroup>;
}

export interface LocomoFigures {
  conversations: Figure;
  questions: Figure;
  /** Questions without evidence, or whose evidence ids are absent from the data. */
  skipped: Figure;
  searchChats: LocomoSurface;
  searchHistory: LocomoSurface;
  note?: string;
}

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/** "1:56 pm on 8 May, 2023" → epoch ms (UTC). */
export function parseLocomoDate(text: string): number {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(text);
  if (!m) return Date.UTC(2023, 0, 1);
  let hour = Number(m[1]) % 12;
  if (m[3]!.toLowerCase() === "pm") hour += 12;
  const month = Math.max(0, MONTHS.indexOf(m[5]!.toLowerCase()));
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
}

export function loadConversation(file: string): Conversation {
  const raw = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  const sessions: Conversation["sessions"] = [];
  for (const key of Object.keys(raw)) {
    const m = /^session_(\d+)$/.exec(key);
    if (!m || !Array.isArray(raw[key])) continue;
    const n = Number(m[1]);
    const when = raw[`session_${n}_date_time`];
    const date = typeof when === "string" ? when : "";
    sessions.push({ n, date, at: parseLocomoDate(date), turns: raw[key] as Turn[] });
  }
  sessions.sort((a, b) => a.n - b.n);
  return {
    name: path.basename(file, ".json"),
    speakerA: typeof raw.speaker_a === "string" ? raw.speaker_a : "",
    sessions,
    qa: (raw.qa as Qa[]) ?? [],
  };
}

const turnText = (t: Turn) => `${t.speaker}: ${t.text}${t.blip_caption ? ` [image: ${t.blip_caption}]` : ""}`;
const sessionOf = (diaId: string) => Number(/^D(\d+):/.exec(diaId)?.[1] ?? NaN);

/** What one question retrieved: sessions and turns in rank order, and the search time. */
interface Retrieval {
  sessions: number[];
  turns: string[];
  ms: number;
}

/** A Dyad-shaped database of the conversation, indexed through attachChatSearch; returns a searcher. */
async function chatSurface(
  conv: Conversation,
  dir: string,
): Promise<{ ask: (q: string) => Promise<Retrieval>; close: () => void }> {
  const file = path.join(dir, "chat.db");
  const db = openDatabase(file);
  for (const ddl of DYAD_DDL) db.exec(ddl);
  db.prepare("INSERT INTO apps (id, name, path) VALUES (1, ?, ?)").run(
    `locomo-${conv.name}`,
    `locomo-${conv.name}`,
  );
  const chatOfSession = new Map<number, number>();
  const diaOfMessage = new Map<number, string>();
  const insertChat = db.prepare("INSERT INTO chats (app_id, title, created_at) VALUES (1, ?, ?)");
  const insertMessage = db.prepare(
    "INSERT INTO messages (chat_id, role, content, created_at) VALUES (?, ?, ?, ?)",
  );
  db.transaction(() => {
    for (const s of conv.sessions) {
      const chatId = Number(insertChat.run(s.date, Math.floor(s.at / 1000)).lastInsertRowid);
      chatOfSession.set(chatId, s.n);
      s.turns.forEach((t, i) => {
        const role = t.speaker === conv.speakerA ? "user" : "assistant";
        const id = Number(
          insertMessage.run(chatId, role, turnText(t), Math.floor(s.at / 1000) + i).lastInsertRowid,
        );
        diaOfMessage.set(id, t.dia_id);
      });
    }
  })();
  const chat = await attachChatSearch(db, { file, backupDir: path.join(dir, "backups") });
  await chat.indexer.drain();
  const [search] = chat.tools;
  return {
    async ask(question) {
      const { ms, value } = await timeAsync(
        async () =>
          JSON.parse(
            await runTool(search, { query: question, limit: 10 }, { appId: 1 }),
          ) as SearchChatsOutput,
      );
      return {
        ms,
        sessions: value.results.map((r) => chatOfSession.get(r.chat_id) ?? -1),
        turns: value.results.flatMap((r) => r.matches.map((m) => diaOfMessage.get(m.message_id) ?? "")),
      };
    },
    close: () => db.close(),
  };
}

const uuidOf = (seed: string) => {
  const h = createHash("sha256").update(seed).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/** Claude Code transcripts of the conversation (one session file per LoCoMo session), indexed by backfill. */
async function historySurface(
  conv: Conversation,
  dir: string,
): Promise<{ ask: (q: string) => Promise<Retrieval>; close: () => Promise<void> }> {
  const home = path.join(dir, "home");
  const cwd = `/locomo/conversation-${conv.name}`;
  const projectDir = path.join(home, ".claude", "projects", cwd.replace(/[^A-Za-z0-9]/g, "-"));
  mkdirSync(projectDir, { recursive: true });
  const sessionOf = new Map<string, number>();
  const diaOfUuid = new Map<string, string>();
  for (const s of conv.sessions) {
    const sessionId = uuidOf(`${conv.name}/session/${s.n}`);
    sessionOf.set(sessionId, s.n);
    let parent: string | null = null;
    const lines: string[] = [];
    s.turns.forEach((t, i) => {
      const uuid = uuidOf(`${conv.name}/${t.dia_id}/${i}`);
      diaOfUuid.set(uuid, t.dia_id);
      const envelope = {
        parentUuid: parent,
        isSidechain: false,
        userType: "external",
        cwd,
        sessionId,
        version: "2.1.0",
        gitBranch: "main",
      };
      const timestamp = new Date(s.at + i * 1000).toISOString();
      const line =
        t.speaker === conv.speakerA
          ? { ...envelope, type: "user", message: { role: "user", content: turnText(t) }, uuid, timestamp }
          : {
              ...envelope,
              type: "assistant",
              message: {
                id: `msg_${uuid.replace(/-/g, "")}`,
                type: "message",
                role: "assistant",
                model: "locomo",
                content: [{ type: "text", text: turnText(t) }],
                stop_reason: "end_turn",
                usage: { input_tokens: 0, output_tokens: 0 },
              },
              uuid,
              timestamp,
            };
      lines.push(JSON.stringify(line));
      parent = uuid;
    });
    // The session's title (its date, as the chat surface's chat title) comes first, so it is
    // known when the turns are indexed: a transcript's later title lines rename the conversation
    // but never rewrite documents already written (indexer/ingest.ts).
    lines.unshift(JSON.stringify({ type: "custom-title", sessionId, customTitle: s.date }));
    writeFileSync(path.join(projectDir, `${sessionId}.jsonl`), `${lines.join("\n")}\n`);
  }
  const recallHome = path.join(dir, "recall");
  const store = await openHistoryStore({ home: recallHome, projectionVersion: PROJECTION_VERSION });
  const sources = createSources(
    { HOME: home, XDG_DATA_HOME: path.join(home, ".local", "share") },
    ConfigSchema.parse({ sources: { codex: false, opencode: false } }),
  );
  backfill(store.db, sources, { projectionVersion: PROJECTION_VERSION, clock: systemClock });
  for (const s of sources) s.close?.();
  store.close();
  // Questions go to a real `recall mcp` over stdio, as an agent asks them; its broker finds the
  // files already indexed.
  const client = await connectRecallMcp({ home, recallHome, cwd: dir, name: "recall-bench-locomo" });
  return {
    async ask(question) {
      const { ms, value } = await timeAsync(async () => {
        const result = await client.callTool({
          name: "search_history",
          arguments: { query: question, limit: 10 },
        });
        const text = (result.content as { type: string; text?: string }[])[0]?.text ?? "";
        if (result.isError) throw new Error(`search_history failed: ${text.slice(0, 200)}`);
        return JSON.parse(text) as SearchHistoryOutput;
      });
      const sessions: number[] = [];
      for (const h of value.hits) {
        const n = sessionOf.get(h.session ?? "") ?? -1;
        if (!sessions.includes(n)) sessions.push(n);
      }
      return {
        ms,
        sessions,
        turns: value.hits.map((h) => diaOfUuid.get(h.id.split(":").at(-1) ?? "") ?? ""),
      };
    },
    close: () => client.close().catch(() => {}),
  };
}

interface Scored {
  category: number;
  sessionRank: number;
  turnRank: number;
  ms: number;
}

function group(rows: readonly Scored[]): LocomoGroup {
  const n = rows.length;
  const share = (f: (r: Scored) => boolean) =>
    fig(n === 0 ? null : round((rows.filter(f).length / n) * 100, 1), "%");
  const mrr = (rank: (r: Scored) => number) =>
    fig(n === 0 ? null : round(rows.reduce((a, r) => a + (rank(r) > 0 ? 1 / rank(r) : 0), 0) / n), "MRR");
  return {
    questions: fig(n, "questions"),
    session: {
      hitAt1: share((r) => r.sessionRank === 1),
      hitAt5: share((r) => r.sessionRank >= 1 && r.sessionRank <= 5),
      mrr: mrr((r) => r.sessionRank),
    },
    turn: {
      hitAt1: share((r) => r.turnRank === 1),
      hitAt5: share((r) => r.turnRank >= 1 && r.turnRank <= 5),
      mrr: mrr((r) => r.turnRank),
    },
    medianSearch: fig(n === 0 ? null : round(median(rows.map((r) => r.ms))), "ms"),
  };
}

function surface(rows: readonly Scored[]): LocomoSurface {
  const categories: Record<string, LocomoGroup> = {};
  for (const [c, name] of Object.entries(LOCOMO_CATEGORIES)) {
    const sub = rows.filter((r) => r.category === Number(c));
    if (sub.length > 0) categories[`${c} ${name}`] = group(sub);
  }
  return { total: group(rows), categories };
}

export function locomoFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /^\d+\.json$/.test(f))
    .sort((a, b) => Number.parseInt(a) - Number.parseInt(b))
    .map((f) => path.join(dir, f));
}

/** Runs the LoCoMo protocol over the first `limit` conversations (all by default). */
export async function benchLocomo(
  dir: string,
  limit = Infinity,
): Promise<LocomoFigures | { unavailable: string }> {
  const files = locomoFiles(dir).slice(0, limit);
  if (files.length === 0) return { unavailable: `LoCoMo data not found in ${dir}` };
  const chats: Scored[] = [];
  const history: Scored[] = [];
  let skipped = 0;
  let questions = 0;
  for (const file of files) {
    const conv = loadConversation(file);
    const known = new Set(conv.sessions.flatMap((s) => s.turns.map((t) => t.dia_id)));
    const scratch = scratchDir(`locomo-${conv.name}`);
    try {
      const chat = await chatSurface(conv, scratch.dir);
      const hist = await historySurface(conv, scratch.dir);
      for (const qa of conv.qa) {
        const evidence = (qa.evidence ?? []).filter((e) => known.has(e));
        if (evidence.length === 0) {
          skipped++;
          continue;
        }
        questions++;
        const sessions = new Set(evidence.map(sessionOf));
        const turns = new Set(evidence);
        for (const [surface, out] of [
          [chat, chats],
          [hist, history],
        ] as const) {
          const r = await surface.ask(qa.question);
          out.push({
            category: qa.category,
            sessionRank: r.sessions.findIndex((s) => sessions.has(s)) + 1,
            turnRank: r.turns.findIndex((t) => turns.has(t)) + 1,
            ms: r.ms,
          });
        }
      }
      chat.close();
      await hist.close();
    } finally {
      scratch.cleanup();
    }
  }
  return {
    conversations: fig(files.length, "conversations"),
    questions: fig(questions, "questions"),
    skipped: fig(skipped, "questions"),
    searchChats: surface(chats),
    searchHistory: surface(history),
  };
}
