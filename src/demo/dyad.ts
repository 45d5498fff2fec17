import path from "node:path";
import type Database from "better-sqlite3";
import { Coverage, PayloadSizer, type SourceContext, type SourceResult } from "./context.js";
import { DYAD_DDL } from "./dyad-schema.js";
import { DEMO_HOME, planSessions, type SessionPlan } from "./plan.js";
import type { Rng } from "./rng.js";
import { BatchedDb } from "./sqlite-batch.js";
import { insertLine } from "./text.js";
import { MODELS_DYAD } from "./vocabulary.js";
import { writeWholeFile } from "./writer.js";

/**
 * A Dyad-shaped chat database at `<root>/.config/dyad/sqlite.db` (apps, chats, messages with the real
 * column names, Unix-second timestamps, cascading foreign keys, no index on messages.chat_id) and app
 * folders under `<root>/dyad-apps/<name>` (apps.path holds the relative name, as Dyad's default
 * ~/dyad-apps does). See docs/sources/dyad.md.
 *
 * User messages: prose, sometimes with literal `<dyad-write>` example text or a `<dyad-attachment>`.
 * Assistant messages (build-mode bodies are raw model output; tool cards escape their bodies):
 * prose mixed with `<think>` (canary), `<dyad-write>` (body canary),
 * dyad-search-replace / dyad-execute-sql / dyad-grep (body canaries), dyad-add-dependency,
 * dyad-chat-summary, dyad-write-plan, dyad-output type="error", an unknown `<dyad-future-tag>` (body
 * canary), and bulky ai_messages_json (canary) on some. Compaction summaries follow Dyad: inserted
 * after the triggering user message (higher id) with created_at one second earlier.
 *
 * Message unit: every `messages` row.
 */

const APP_NAMES = [
  "sunny-todo",
  "recipe-box",
  "habit-tracker",
  "invoice-hub",
  "pixel-board",
  "travel-planner",
  "crm-lite",
  "quiz-master",
];
const FUTURE_TAG = "dyad-future-tag";

/** Dyad's shared/xmlEscape.ts rules. */
export function escapeXmlAttr(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
export function escapeXmlContent(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

interface MessageRow {
  id: number;
  chat_id: number;
  role: "user" | "assistant";
  content: string;
  approval_state: string | null;
  source_commit_hash: string | null;
  commit_hash: string | null;
  request_id: string | null;
  max_tokens_used: number | null;
  model: string | null;
  ai_messages_json: string | null;
  using_free_agent_mode_quota: number | null;
  is_compaction_summary: number | null;
  created_at: number;
}

class DyadGen {
  private db!: BatchedDb;
  private insertMessage!: Database.Statement;
  private messageId = 0;
  messages = 0;
  files = 0;
  private readonly cov = new Coverage([
    "think",
    "write",
    "search-replace",
    "sql",
    "grep",
    "dependency",
    "plan",
    "output-error",
    "future",
    "user-literal",
    "attachment",
    "ai-json",
    "compaction",
    "null-title",
  ]);
  private readonly sizer: PayloadSizer;

  constructor(
    private readonly ctx: SourceContext,
    private readonly rng: Rng,
    private readonly dbFile: string,
    private readonly appsDir: string,
  ) {
    this.sizer = new PayloadSizer(rng.fork("sizes"), 2);
  }

  run(): SourceResult {
    const { ctx, rng } = this;
    const plans = planSessions(rng.fork("plan"), { ...ctx.spec, baseTime: ctx.baseTime, minPerSession: 2 });
    this.db = new BatchedDb(this.dbFile, DYAD_DDL, 4000, ["foreign_keys = ON"]);
    const insertApp = this.db.prepare(
      "INSERT INTO apps (id, name, path, created_at, updated_at, github_org, github_repo, github_branch, install_command, start_command, is_favorite, needs_app_blueprint, testing_enabled) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0)",
    );
    const insertChat = this.db.prepare(
      "INSERT INTO chats (id, app_id, title, initial_commit_hash, created_at, pending_compaction, chat_mode, is_favorite) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    );
    const updateChat = this.db.prepare(
      "UPDATE chats SET compacted_at = ?, compaction_backup_path = ?, pending_compaction = 0 WHERE id = ?",
    );
    this.insertMessage = this.db.prepare(
      "INSERT INTO messages (id, chat_id, role, content, approval_state, source_commit_hash, commit_hash, request_id, max_tokens_used, model, ai_messages_json, using_free_agent_mode_quota, is_compaction_summary, created_at) VALUES (@id, @chat_id, @role, @content, @approval_state, @source_commit_hash, @commit_hash, @request_id, @max_tokens_used, @model, @ai_messages_json, @using_free_agent_mode_quota, @is_compaction_summary, @created_at)",
    );

    const appCount = Math.max(1, ctx.spec.projects);
    const appNames: string[] = [];
    const appFirstUse = new Map<number, number>();
    for (const p of plans) if (!appFirstUse.has(p.project)) appFirstUse.set(p.project, p.start);
    for (let a = 0; a < appCount; a++) {
      const name = APP_NAMES[a] ?? `demo-app-${String(a + 1).padStart(3, "0")}`;
      appNames.push(name);
      const created = Math.floor((appFirstUse.get(a) ?? ctx.baseTime) / 1000) - 3600;
      this.db.run(insertApp, [
        a + 1,
        name,
        name,
        created,
        created,
        a % 2 === 0 ? "acme" : null,
        a % 2 === 0 ? name : null,
        a % 2 === 0 ? "main" : null,
        a === 1 ? "pnpm install" : null,
        a === 1 ? "pnpm dev" : null,
        a === 0 ? 1 : 0,
      ]);
      this.writeAppFolder(name);
    }

    for (const plan of plans) {
      const chatId = plan.index + 1;
      const appId = plan.project + 1;
      const appName = appNames[plan.project] as string;
      const title = this.cov.want(rng, "null-title", 0.15) ? null : ctx.text.title(rng);
      const created = Math.floor(plan.start / 1000);
      this.db.run(insertChat, [
        chatId,
        appId,
        title,
        rng.hex(20),
        created,
        0,
        rng.weighted([
          ["build", 8],
          ["ask", 2],
          ["agent", 1],
        ] as const),
        rng.chance(0.05) ? 1 : 0,
      ]);
      const compaction = this.chat(plan, chatId, appId, appName, created);
      if (compaction !== null) this.db.run(updateChat, [compaction.at, compaction.path, chatId]);
    }
    this.db.close();
    return {
      counts: { sessions: plans.length, messages: this.messages, files: this.files + 1 },
      projectsUsed: [],
    };
  }

  private writeAppFolder(name: string): void {
    const dir = path.join(this.appsDir, name);
    writeWholeFile(
      path.join(dir, "package.json"),
      JSON.stringify(
        {
          name,
          private: true,
          version: "0.0.0",
          type: "module",
          scripts: { dev: "vite", build: "vite build" },
        },
        null,
        2,
      ) + "\n",
    );
    writeWholeFile(
      path.join(dir, "AI_RULES.md"),
      `# Tech Stack\n\n- React + TypeScript + Vite\n- Tailwind CSS, shadcn/ui\n`,
    );
    writeWholeFile(
      path.join(dir, "src", "App.tsx"),
      `export default function App() {\n  return <main className="p-4">${name}</main>;\n}\n`,
    );
    this.files += 3;
  }

  private emit(row: MessageRow): void {
    this.db.run(this.insertMessage, row);
    this.messages++;
    this.ctx.progress.add(1);
  }

  private row(chatId: number, role: "user" | "assistant", content: string, createdAt: number): MessageRow {
    return {
      id: ++this.messageId,
      chat_id: chatId,
      role,
      content,
      approval_state: null,
      source_commit_hash: null,
      commit_hash: null,
      request_id: null,
      max_tokens_used: null,
      model: null,
      ai_messages_json: null,
      using_free_agent_mode_quota: null,
      is_compaction_summary: null,
      created_at: createdAt,
    };
  }

  /** Writes one chat's messages; returns its compaction (if any) for the chat row. */
  private chat(
    plan: SessionPlan,
    chatId: number,
    appId: number,
    appName: string,
    start: number,
  ): { at: number; path: string } | null {
    const { rng } = this;
    let t = start;
    const target = plan.messages;
    const compactAt =
      target >= 6 && (this.cov.has("compaction") || (target >= 40 && rng.chance(0.4)))
        ? 2 * Math.floor(target / 4)
        : -1;
    let compaction: { at: number; path: string } | null = null;
    let i = 0;
    while (i < target) {
      t += rng.range(5, 600);
      const user = this.row(chatId, "user", this.userContent(i), t);
      this.needle(user, appId, chatId);
      this.emit(user);
      i++;
      if (compaction === null && compactAt >= 0 && i > compactAt && i < target) {
        // Dyad inserts the summary after the triggering user message: higher id, created_at − 1 s.
        const backup = `${DEMO_HOME}/dyad-apps/${appName}/.dyad/chats/${chatId}/compaction-${t}.md`;
        const summary = this.ctx.text.summary(rng);
        const s = this.row(
          chatId,
          "assistant",
          `<dyad-compaction title="Conversation compacted" state="finished">${escapeXmlContent(summary)}</dyad-compaction>\nIf you need to retrieve earlier parts of the conversation history, you can read the backup file at: ${backup}\nNote: This file may be large. Read only the sections you need, use grep to search for specific content rather than reading the entire file.`,
          t - 1,
        );
        s.is_compaction_summary = 1;
        this.emit(s);
        i++;
        compaction = { at: t, path: backup };
        this.cov.done("compaction");
        writeWholeFile(
          path.join(this.appsDir, appName, ".dyad", "chats", String(chatId), `compaction-${t}.md`),
          `<transcript chatId="${chatId}" compactedAt="${t}">\n<msg role="user">${escapeXmlContent(this.ctx.text.userPrompt(rng))}</msg>\n</transcript>\n`,
        );
        this.files++;
      }
      if (i >= target) break;
      t += rng.range(3, 120);
      const a = this.row(chatId, "assistant", this.assistantContent(i === 1), t);
      a.model = rng.pick(MODELS_DYAD);
      a.request_id = rng.uuid4();
      a.max_tokens_used = rng.range(800, 120_000);
      a.is_compaction_summary = rng.chance(0.5) ? 0 : null;
      if (a.content.includes("<dyad-write") || a.content.includes("<dyad-search-replace")) {
        a.approval_state = "approved";
        a.source_commit_hash = rng.hex(20);
        a.commit_hash = rng.hex(20);
      }
      if (this.cov.want(rng, "ai-json", 0.05)) a.ai_messages_json = this.aiMessagesJson();
      this.needle(a, appId, chatId);
      this.emit(a);
      i++;
    }
    return compaction;
  }

  private needle(row: MessageRow, appId: number, chatId: number): void {
    const { ctx, rng } = this;
    if (!ctx.needles.due(this.messages, row.role)) return;
    const s = ctx.needles.plant(row.role).sentence;
    row.content = rng.chance(0.5) ? `${s} ${row.content}` : `${row.content}\n\n${s}`;
    ctx.needles.record({
      session: String(chatId),
      project: null,
      at: row.created_at * 1000,
      ref: { appId, chatId, messageId: row.id },
    });
  }

  private userContent(i: number): string {
    const { ctx, rng } = this;
    const text = ctx.text.userPrompt(rng);
    if (i > 0 && this.cov.want(rng, "user-literal", 0.02)) {
      const file = ctx.text.file(rng);
      return `${text} Why did you write it like this?\n<dyad-write path="${file}" description="example">export const answer = 42;</dyad-write>\nPlease keep the export but rename it.`;
    }
    if (this.cov.want(rng, "attachment", 0.02)) {
      return `${text}\n\n<dyad-attachment name="mockup.png" type="image/png" url="dyad-media://mockup.png" path="/home/demo/.dyad/media/mockup.png" attachment-type="chat-context"></dyad-attachment>`;
    }
    return text;
  }

  private tag(name: string, attrs: Record<string, string>, body: string): string {
    const a = Object.entries(attrs)
      .map(([k, v]) => ` ${k}="${escapeXmlAttr(v)}"`)
      .join("");
    return `<${name}${a}>${body}</${name}>`;
  }

  private assistantContent(firstReply: boolean): string {
    const { ctx, rng, cov } = this;
    const parts: string[] = [];
    if (cov.want(rng, "think", 0.25))
      parts.push(`<think>${insertLine(rng, ctx.text.thinking(rng), ctx.canaries.take("THINK"))}</think>`);
    parts.push(ctx.text.assistantReply(rng));
    const tags = rng.weighted([
      [0, 3],
      [1, 4],
      [2, 2],
      [3, 1],
    ] as const);
    for (let k = 0; k < tags; k++) {
      const file = ctx.text.file(rng);
      const pick = rng.int(100);
      if (cov.want(rng, "write", 0) || pick < 30) {
        const body = insertLine(
          rng,
          ctx.text.codeBody(rng, this.sizer.next()),
          `// ${ctx.canaries.take("WRITE")}`,
        );
        parts.push(this.tag("dyad-write", { path: file, description: ctx.text.title(rng) }, `\n${body}\n`));
      } else if (cov.want(rng, "search-replace", 0) || pick < 45) {
        const body = `\n<<<<<<< SEARCH\n${ctx.text.codeBody(rng, 120)}\n=======\n${ctx.text.codeBody(rng, 160)}\n// ${ctx.canaries.take("DYAD")}\n>>>>>>> REPLACE\n`;
        parts.push(this.tag("dyad-search-replace", { path: file, description: ctx.text.title(rng) }, body));
      } else if (cov.want(rng, "sql", 0) || pick < 52) {
        parts.push(
          this.tag(
            "dyad-execute-sql",
            { description: ctx.text.title(rng) },
            `\n-- ${ctx.canaries.take("DYAD")}\nCREATE INDEX IF NOT EXISTS idx_${ctx.text.zipfWord(rng).replace(/\W/g, "")} ON todos (created_at);\n`,
          ),
        );
      } else if (cov.want(rng, "grep", 0) || pick < 62) {
        const out = insertLine(rng, ctx.text.toolOutput(rng, this.sizer.next()), ctx.canaries.take("DYAD"));
        parts.push(
          this.tag(
            "dyad-grep",
            {
              query: ctx.text.zipfWord(rng),
              include: "src/**/*.ts",
              count: String(rng.range(1, 40)),
              total: String(rng.range(40, 90)),
              state: "finished",
            },
            `\n${escapeXmlContent(out)}\n`,
          ),
        );
      } else if (cov.want(rng, "dependency", 0) || pick < 68) {
        parts.push(
          this.tag(
            "dyad-add-dependency",
            { packages: rng.pick(["zod", "zod react-hook-form", "@tanstack/react-query", "date-fns"]) },
            "",
          ),
        );
      } else if (cov.want(rng, "plan", 0) || pick < 72) {
        parts.push(
          this.tag(
            "dyad-write-plan",
            { title: ctx.text.title(rng), summary: ctx.text.sentence(rng), complete: "true" },
            `\n## Plan\n\n${escapeXmlContent(ctx.text.summary(rng))}\n`,
          ),
        );
      } else if (cov.want(rng, "output-error", 0) || pick < 77) {
        const code = ctx.text.errorCode(rng);
        parts.push(
          this.tag(
            "dyad-output",
            { type: "error", message: `Tool 'run_type_checks' failed: ${code}` },
            `\n${escapeXmlContent(ctx.text.sentence(rng))}\n`,
          ),
        );
      } else if (cov.want(rng, "future", 0) || pick < 80) {
        parts.push(
          this.tag(
            FUTURE_TAG,
            { mode: "preview", state: "finished" },
            `\n${ctx.canaries.take("DYAD")} ${escapeXmlContent(ctx.text.toolOutput(rng, 200))}\n`,
          ),
        );
      } else if (pick < 90) {
        parts.push(this.tag("dyad-read", { path: file }, ""));
      } else {
        parts.push(this.tag("dyad-rename", { from: file, to: file.replace(/(\.\w+)$/, ".old$1") }, ""));
      }
      if (rng.chance(0.3)) parts.push(ctx.text.sentence(rng));
    }
    if (firstReply) parts.push(this.tag("dyad-chat-summary", {}, escapeXmlContent(ctx.text.title(rng))));
    return parts.join("\n\n");
  }

  /** A bulky AI SDK v6 transcript; its tool results carry a canary. `aiMessagesJson` is never read by search. */
  private aiMessagesJson(): string {
    const { ctx, rng } = this;
    const messages: unknown[] = [
      { role: "user", content: [{ type: "text", text: ctx.text.userPrompt(rng) }] },
    ];
    const calls = rng.range(2, 6);
    for (let c = 0; c < calls; c++) {
      const toolCallId = `call_${rng.base62(24)}`;
      const file = ctx.text.file(rng);
      messages.push({
        role: "assistant",
        content: [{ type: "tool-call", toolCallId, toolName: "read_file", input: { path: file } }],
      });
      messages.push({
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId,
            toolName: "read_file",
            output: {
              type: "text",
              value: insertLine(
                rng,
                ctx.text.codeBody(rng, rng.range(1_000, 4_000)),
                `// ${ctx.canaries.take("AIJSON")}`,
              ),
            },
          },
        ],
      });
    }
    messages.push({ role: "assistant", content: [{ type: "text", text: ctx.text.assistantReply(rng) }] });
    return JSON.stringify({ messages, sdkVersion: "ai@v6" });
  }
}

/** Writes the Dyad database and app folders. */
export function generateDyad(ctx: SourceContext, dbFile: string, appsDir: string): SourceResult {
  return new DyadGen(ctx, ctx.rng, dbFile, appsDir).run();
}
