import path from "node:path";
import type Database from "better-sqlite3";
import { Coverage, PayloadSizer, type SourceContext, type SourceResult } from "./context.js";
import { V1_MIGRATIONS, PURE_V1_DDL, UPGRADED_DDL } from "./opencode-schema.js";
import { planSessions, type SessionPlan } from "./plan.js";
import type { Rng } from "./rng.js";
import { BatchedDb } from "./sqlite-batch.js";
import { insertLine } from "./text.js";
import { MODELS_OPENCODE } from "./vocabulary.js";
import { writeWholeFile } from "./writer.js";

/**
 * opencode (docs/sources/opencode.md), in all three eras under `<dataDir>` (~/.local/share/opencode):
 * - `storage/{project,session,message,part}/…` JSON files (before v1.2);
 * - `opencode.db`: a 1.x database upgraded to 2.x — v1 tables session/message/part hold old sessions
 *   (one of them imported from storage/), and v2 tables session_v2/session_message hold migrated
 *   copies with the same ids, some continued after the upgrade, plus v2-only sessions;
 * - `opencode-dev.db`: a pure 1.x database (dev channel).
 * Both databases are WAL. v1 covers text, reasoning (canary), tool with state.output (canary),
 * step-start/finish, a file part with a data: URL (canary), a compaction part + summary:true message,
 * a child session with parent_id (task tool). v2 covers user, assistant content[] with
 * text/reasoning/tool, synthetic, system, agent-switched, shell (output canary), compaction, idle, and
 * a subagent child session.
 *
 * Message unit: each message once — v1 message rows / storage message files (an imported session is
 * counted once) and v2 rows other than idle/system/agent-switched markers and migrated copies.
 */

type Json = Record<string, unknown>;
type StoreKind = "storage" | "db" | "dev" | "v2";
const STORE_NAME: Record<StoreKind, string> = {
  storage: "storage",
  db: "opencode.db",
  dev: "opencode-dev.db",
  v2: "opencode.db",
};

const SLUG_A = "glowing tidy hidden calm curious neon stellar brave quiet swift sunny misty".split(" ");
const SLUG_B = "wolf squid comet circuit meadow wizard mountain falcon river nebula harbor pixel".split(" ");
const PERMISSION =
  '[{"permission":"question","pattern":"*","action":"deny"},{"permission":"plan_enter","pattern":"*","action":"deny"},{"permission":"plan_exit","pattern":"*","action":"deny"}]';
const PLAN_REMINDER =
  "<system-reminder>\nYou are in Plan mode. Discuss the plan with the user directly in the conversation. Do not create or update plan files unless the user explicitly asks you to.\n\nYou remain in Plan mode until the user switches agents. If the user asks you to implement changes, do not do so. Tell them they need to switch agents.\n</system-reminder>";
const TOOLS_CHANGED =
  "The available tools have changed.\n\nThe `bash` tool is now `shell` and must be called by that name.\n\nThe `read` tool now takes `path` instead of `filePath`.";

/** opencode ids: prefix + 12 hex of (ms·4096 + counter) (bit-inverted for sessions) + 14 base62. */
class OpencodeIds {
  private lastMs = -1;
  private counter = 0;
  constructor(private readonly rng: Rng) {}
  make(prefix: "ses" | "msg" | "prt", ms: number, descending = false): string {
    if (ms === this.lastMs) this.counter = (this.counter + 1) % 4096;
    else {
      this.lastMs = ms;
      this.counter = 0;
    }
    const bits48 = 2 ** 48;
    let v = (ms * 4096 + this.counter) % bits48;
    if (descending) v = bits48 - 1 - v;
    return `${prefix}_${v.toString(16).padStart(12, "0")}${this.rng.base62(14)}`;
  }
}

interface V1Part {
  id: string;
  created: number;
  updated: number;
  data: Json;
}
interface V1Message {
  id: string;
  created: number;
  updated: number;
  data: Json;
  parts: V1Part[];
}
interface SessionRow {
  id: string;
  projectId: string;
  parentId: string | null;
  slug: string;
  directory: string;
  title: string | null;
  version: string;
  created: number;
  updated: number;
  agent: string | null;
  model: string | null;
  cost: number;
  tokensIn: number;
  tokensOut: number;
}
interface V1Session {
  row: SessionRow;
  store: StoreKind;
  messages: V1Message[];
}
interface V2Row {
  id: string;
  type: string;
  seq: number;
  created: number;
  updated: number;
  data: Json;
}

class OpencodeGen {
  private readonly ids: OpencodeIds;
  private clock = 0;
  private ordinal = 0;
  messages = 0;
  sessions = 0;
  files = 0;
  private readonly used = new Set<string>();
  private readonly projectIds: string[];
  private readonly cov = new Coverage([
    ...["file", "compaction", "reasoning", "tool-error"].flatMap((f) => [`${f}-storage`, `${f}-sqlite`]),
    ...[
      "task",
      "reasoning-v2",
      "tool-error-v2",
      "synthetic",
      "shell",
      "v2-compaction",
      "subagent",
      "null-title",
      "continued",
    ],
  ]);
  private readonly sizers: Record<"storage" | "sqlite" | "v2", PayloadSizer>;
  private db!: BatchedDb;
  private dev!: BatchedDb;
  private stmts!: Record<string, Database.Statement>;

  constructor(
    private readonly ctx: SourceContext,
    private readonly rng: Rng,
    private readonly dataDir: string,
  ) {
    this.ids = new OpencodeIds(rng.fork("ids"));
    this.sizers = {
      storage: new PayloadSizer(rng.fork("sizes-storage"), 1),
      sqlite: new PayloadSizer(rng.fork("sizes-sqlite"), 2),
      v2: new PayloadSizer(rng.fork("sizes-v2"), 1),
    };
    const pr = rng.fork("projects");
    this.projectIds = ctx.projects.map((_, i) => (i === 2 ? "global" : pr.hex(20)));
  }

  private tick(minMs: number, maxMs: number): number {
    this.clock += this.rng.range(minMs, maxMs);
    return this.clock;
  }

  private model(): { providerID: string; modelID: string } {
    const [providerID, modelID] = this.rng.pick(MODELS_OPENCODE);
    return { providerID, modelID };
  }

  private tokens(): Json {
    const { rng } = this;
    const input = rng.range(200, 20_000);
    const output = rng.range(5, 2_000);
    const read = rng.range(0, 40_000);
    return { total: input + output + read, input, output, reasoning: 0, cache: { write: 0, read } };
  }

  private countMessage(n = 1): void {
    this.messages += n;
    this.ordinal += n;
    this.ctx.progress.add(n);
  }

  // ---------------------------------------------------------------- v1 sessions (storage, db, dev)

  private newSessionRow(
    plan: SessionPlan,
    store: StoreKind,
    parentId: string | null,
    title: string | null,
    id?: string,
  ): SessionRow {
    const { rng } = this;
    const version =
      store === "storage"
        ? rng.pick(["0.15.18", "1.0.45", "1.1.3"])
        : store === "v2"
          ? "2.0.26"
          : rng.pick(["1.15.10", "1.16.2", "1.18.33"]);
    const m = this.model();
    const directory = this.ctx.projects[plan.project] as string;
    this.used.add(directory);
    return {
      id: id ?? this.ids.make("ses", this.clock, true),
      projectId: this.projectIds[plan.project] as string,
      parentId,
      slug: `${rng.pick(SLUG_A)}-${rng.pick(SLUG_B)}`,
      directory,
      title,
      version,
      created: this.clock,
      updated: this.clock,
      agent: "build",
      model: JSON.stringify({ id: m.modelID, providerID: m.providerID, variant: "default" }),
      cost: 0,
      tokensIn: 0,
      tokensOut: 0,
    };
  }

  private part(data: Json, dur = 5): V1Part {
    const created = this.tick(1, 40);
    return { id: this.ids.make("prt", created), created, updated: created + this.rng.range(0, dur), data };
  }

  private textWithNeedle(base: string, role: "user" | "assistant"): { text: string; needle: boolean } {
    if (!this.ctx.needles.due(this.ordinal, role)) return { text: base, needle: false };
    const s = this.ctx.needles.plant(role).sentence;
    return { text: this.rng.chance(0.5) ? `${s} ${base}` : `${base} ${s}`, needle: true };
  }

  private recordNeedle(
    session: SessionRow,
    store: StoreKind,
    messageId: string,
    partId: string | null,
    at: number,
  ): void {
    const ref: Record<string, string> = { store: STORE_NAME[store], sessionId: session.id, messageId };
    if (partId !== null) ref.partId = partId;
    this.ctx.needles.record({ session: session.id, project: session.directory, at, ref });
  }

  /** Builds one v1 session (and its child sessions) in memory; callers write it to its store. */
  private v1Session(
    plan: SessionPlan,
    store: StoreKind,
    parent: { parentId: string; id: string; prompt: string } | null,
  ): V1Session[] {
    const { rng, ctx } = this;
    const row = this.newSessionRow(plan, store, parent?.parentId ?? null, ctx.text.title(rng), parent?.id);
    const session: V1Session = { row, store, messages: [] };
    const out: V1Session[] = [session];
    const target = parent !== null ? rng.range(2, 4) : plan.messages;
    const g = group(store);
    const compactAt =
      parent === null && target >= 8 && (this.cov.has(`compaction-${g}`) || (target >= 60 && rng.chance(0.5)))
        ? Math.floor(target / 2)
        : -1;
    let count = 0;
    let compacted = false;
    const m = this.model();
    const oldShape = store === "storage" && rng.chance(0.5);
    while (count < target) {
      // User message.
      const userCreated = this.tick(20_000, 900_000);
      const user: V1Message = {
        id: this.ids.make("msg", userCreated),
        created: userCreated,
        updated: userCreated,
        data: {
          role: "user",
          time: { created: userCreated },
          agent: "build",
          model: { providerID: m.providerID, modelID: m.modelID },
          summary: { diffs: [] },
        },
        parts: [],
      };
      if (!compacted && compactAt >= 0 && count >= compactAt && count < target - 1) {
        compacted = true;
        this.cov.done(`compaction-${g}`);
        user.parts.push(this.part({ type: "compaction", auto: true }));
        session.messages.push(user);
        const sum = this.assistantMessage(user, m, session, "stop");
        sum.data.summary = true;
        const text = this.part({
          type: "text",
          text: ctx.text.summary(rng),
          time: { start: this.clock, end: this.clock + 5 },
        });
        sum.parts.splice(1, 0, text);
        count += 2;
        this.countMessage(2);
        continue;
      }
      const prompt = parent !== null && count === 0 ? parent.prompt : ctx.text.userPrompt(rng);
      const { text, needle } =
        parent !== null ? { text: prompt, needle: false } : this.textWithNeedle(prompt, "user");
      const textPart = this.part({ type: "text", text });
      user.parts.push(textPart);
      if (this.cov.want(rng, `file-${g}`, 0.03)) {
        user.parts.push(
          this.part({
            type: "file",
            mime: "image/png",
            filename: "screenshot.png",
            url: `data:image/png;base64,iVBORw0KGgo${rng.base64(rng.range(300, 1500))}${ctx.canaries.take("B64")}${rng.base64(200)}=`,
          }),
        );
      } else if (rng.chance(0.05)) {
        const file = ctx.text.file(rng);
        user.parts.push(
          this.part({
            type: "text",
            synthetic: true,
            text: `Called the Read tool with the following input: {"filePath":"${row.directory}/${file}"}`,
          }),
        );
      }
      session.messages.push(user);
      if (needle) this.recordNeedle(row, store, user.id, textPart.id, userCreated);
      count++;
      this.countMessage();
      // Tool steps: one assistant message per step, as opencode writes them.
      const remaining = target - count;
      let steps =
        remaining <= 2
          ? 0
          : Math.min(
              rng.weighted([
                [0, 3],
                [1, 4],
                [2, 2],
              ] as const),
              remaining - 1,
            );
      if (steps === 0 && parent === null && store !== "storage" && this.cov.has("task") && remaining >= 2)
        steps = 1;
      for (let s = 0; s < steps && count < target - 1; s++) {
        const a = this.assistantMessage(user, m, session, "tool-calls");
        if (oldShape) {
          delete a.data.modelID;
          delete a.data.providerID;
          a.data.model = { providerID: m.providerID, modelID: m.modelID };
        }
        const child = this.toolPart(a, row, store, parent === null);
        if (child !== null)
          out.push(...this.v1Session(plan, store, { parentId: row.id, id: child.id, prompt: child.prompt }));
        count++;
        this.countMessage();
      }
      // Final answer.
      const a = this.assistantMessage(user, m, session, "stop");
      const replyText = ctx.text.assistantReply(rng);
      const reply =
        parent === null ? this.textWithNeedle(replyText, "assistant") : { text: replyText, needle: false };
      const tp = this.part({
        type: "text",
        text: reply.text,
        time: { start: this.clock, end: this.clock + rng.range(50, 4000) },
      });
      a.parts.splice(a.parts.length - 1, 0, tp);
      if (reply.needle) this.recordNeedle(row, store, a.id, tp.id, a.created);
      count++;
      this.countMessage();
    }
    row.updated = this.clock;
    return out;
  }

  /** An assistant message with step-start / [reasoning] / step-finish parts (content parts go between). */
  private assistantMessage(
    user: V1Message,
    m: { providerID: string; modelID: string },
    session: V1Session,
    finish: "tool-calls" | "stop",
  ): V1Message {
    const { rng, ctx } = this;
    const created = this.tick(500, 20_000);
    const tokens = this.tokens();
    const cost = Math.round(rng.next() * 5000) / 100000;
    const msg: V1Message = {
      id: this.ids.make("msg", created),
      created,
      updated: created,
      data: {
        parentID: user.id,
        role: "assistant",
        mode: "build",
        agent: "build",
        path: { cwd: session.row.directory, root: "/" },
        cost,
        tokens,
        modelID: m.modelID,
        providerID: m.providerID,
        time: { created, completed: created },
        finish,
      },
      parts: [],
    };
    msg.parts.push(this.part({ type: "step-start" }));
    if (this.cov.want(rng, `reasoning-${group(session.store)}`, 0.3)) {
      msg.parts.push(
        this.part({
          type: "reasoning",
          text: insertLine(rng, ctx.text.thinking(rng), ctx.canaries.take("THINK")),
          time: { start: this.clock, end: this.clock + rng.range(100, 3000) },
          metadata: {},
        }),
      );
    }
    msg.parts.push(this.part({ reason: finish, type: "step-finish", tokens, cost }));
    const completed = this.tick(10, 2_000);
    (msg.data.time as Json).completed = completed;
    msg.updated = completed;
    session.row.cost += cost;
    session.row.tokensIn += tokens.input as number;
    session.row.tokensOut += tokens.output as number;
    session.messages.push(msg);
    return msg;
  }

  /** Adds a tool part to an assistant step; returns a child session to create for `task`. */
  private toolPart(
    msg: V1Message,
    row: SessionRow,
    store: StoreKind,
    allowTask: boolean,
  ): { id: string; prompt: string } | null {
    const { rng, ctx } = this;
    const sizer = this.sizers[group(store)];
    const callID = `call_${rng.base62(20)}`;
    const start = this.tick(10, 500);
    const end = start + rng.range(5, 3000);
    let data: Json;
    let child: { id: string; prompt: string } | null = null;
    if (allowTask && store !== "storage" && this.cov.want(rng, "task", 0.02)) {
      const prompt = ctx.text.userPrompt(rng);
      const id = this.ids.make("ses", this.clock, true);
      const report = ctx.text.assistantReply(rng);
      child = { id, prompt };
      data = {
        type: "tool",
        tool: "task",
        callID,
        state: {
          status: "completed",
          input: { description: ctx.text.title(rng), prompt, subagent_type: "general" },
          output: `${report}\n\n<task_metadata>\nsession_id: ${id}\n</task_metadata>\n${ctx.canaries.take("TOOL")}`,
          metadata: { sessionId: id, summary: [], truncated: false },
          title: ctx.text.title(rng),
          time: { start, end },
        },
      };
    } else if (this.cov.want(rng, `tool-error-${group(store)}`, 0.06)) {
      data = {
        type: "tool",
        tool: "read",
        callID,
        state: {
          status: "error",
          input: { filePath: `${row.directory}/${ctx.text.file(rng)}` },
          error: `File not found: ${row.directory}/${ctx.text.file(rng)} (${ctx.text.errorCode(rng)})`,
          time: { start, end },
        },
      };
    } else {
      const tool = rng.pick(["bash", "bash", "read", "grep", "edit", "write"] as const);
      let input: Json;
      let output: string;
      if (tool === "bash") {
        const command = ctx.text.command(rng);
        input = { command, description: ctx.text.title(rng) };
        output = insertLine(
          rng,
          ctx.text.toolOutput(rng, sizer.next()),
          `debug ${ctx.canaries.take("TOOL")}`,
        );
      } else if (tool === "write") {
        input = {
          filePath: `${row.directory}/${ctx.text.file(rng)}`,
          content: insertLine(rng, ctx.text.codeBody(rng, sizer.next()), `// ${ctx.canaries.take("WRITE")}`),
        };
        output = `Wrote file successfully. ${ctx.canaries.take("TOOL")}`;
      } else if (tool === "edit") {
        input = {
          filePath: `${row.directory}/${ctx.text.file(rng)}`,
          oldString: ctx.text.codeBody(rng, 80),
          newString: ctx.text.codeBody(rng, 120),
        };
        output = `Edit applied successfully.\n${ctx.canaries.take("TOOL")}`;
      } else if (tool === "grep") {
        input = { pattern: ctx.text.zipfWord(rng), path: row.directory };
        output = insertLine(rng, ctx.text.toolOutput(rng, sizer.next()), ctx.canaries.take("TOOL"));
      } else {
        input = { filePath: `${row.directory}/${ctx.text.file(rng)}` };
        output = `<file>\n${insertLine(rng, ctx.text.codeBody(rng, sizer.next()), `// ${ctx.canaries.take("TOOL")}`)}\n</file>`;
      }
      data = {
        type: "tool",
        tool,
        callID,
        state: {
          status: "completed",
          input,
          output,
          metadata:
            tool === "bash"
              ? { output, exit: 0, description: input.description, truncated: false }
              : { truncated: false },
          title: tool === "bash" ? (input.description as string) : String(input.filePath ?? input.pattern),
          time: { start, end },
        },
      };
    }
    const p: V1Part = { id: this.ids.make("prt", start), created: start, updated: end, data };
    msg.parts.splice(msg.parts.length - 1, 0, p);
    return child;
  }

  // ---------------------------------------------------------------- writers

  private openDbs(): void {
    this.db = new BatchedDb(path.join(this.dataDir, "opencode.db"), UPGRADED_DDL);
    this.dev = new BatchedDb(path.join(this.dataDir, "opencode-dev.db"), PURE_V1_DDL);
    const sessionCols =
      "id, project_id, parent_id, slug, directory, path, title, version, share_url, summary_additions, summary_deletions, summary_files, summary_diffs, revert, permission, time_created, time_updated, time_compacting, time_archived, workspace_id, agent, model, cost, tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write, metadata";
    const sessionVals = sessionCols
      .split(", ")
      .map((c) => `@${c}`)
      .join(", ");
    const v2Cols = `${sessionCols}, fork_session_id, fork_boundary, time_suspended, resume_attempts, time_idle, time_viewed, idle_outcome`;
    const v2Vals = v2Cols
      .split(", ")
      .map((c) => `@${c}`)
      .join(", ");
    this.stmts = {};
    for (const [name, h] of [
      ["db", this.db],
      ["dev", this.dev],
    ] as const) {
      this.stmts[`${name}.project`] = h.prepare(
        "INSERT INTO project (id, worktree, vcs, name, time_created, time_updated, time_initialized, sandboxes) VALUES (?, ?, ?, ?, ?, ?, ?, '[]')",
      );
      this.stmts[`${name}.session`] = h.prepare(
        `INSERT INTO session (${sessionCols}) VALUES (${sessionVals})`,
      );
      this.stmts[`${name}.message`] = h.prepare(
        "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)",
      );
      this.stmts[`${name}.part`] = h.prepare(
        "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)",
      );
      this.stmts[`${name}.migration`] = h.prepare("INSERT INTO migration (id, time_completed) VALUES (?, ?)");
    }
    this.stmts["db.session_v2"] = this.db.prepare(`INSERT INTO session_v2 (${v2Cols}) VALUES (${v2Vals})`);
    this.stmts["db.session_message"] = this.db.prepare(
      "INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    for (const [name, h] of [
      ["db", this.db],
      ["dev", this.dev],
    ] as const) {
      V1_MIGRATIONS.forEach((id, i) =>
        h.run(this.stmts[`${name}.migration`] as Database.Statement, [id, this.ctx.baseTime + i]),
      );
      this.ctx.projects.forEach((dir, i) => {
        const id = this.projectIds[i] as string;
        h.run(this.stmts[`${name}.project`] as Database.Statement, [
          id,
          id === "global" ? "/" : dir,
          id === "global" ? null : "git",
          null,
          this.ctx.baseTime,
          this.ctx.baseTime,
          this.ctx.baseTime,
        ]);
      });
    }
  }

  private sessionParams(r: SessionRow, store: StoreKind): Json {
    return {
      id: r.id,
      project_id: r.projectId,
      parent_id: r.parentId,
      slug: r.slug,
      directory: r.directory,
      path: store === "v2" ? "" : r.directory.slice(1),
      title: r.title,
      version: r.version,
      share_url: null,
      summary_additions: store === "v2" ? null : 0,
      summary_deletions: store === "v2" ? null : 0,
      summary_files: store === "v2" ? null : 0,
      summary_diffs: null,
      revert: null,
      permission: store === "v2" ? null : PERMISSION,
      time_created: r.created,
      time_updated: r.updated,
      time_compacting: null,
      time_archived: null,
      workspace_id: null,
      agent: r.agent,
      model: r.model,
      cost: Math.round(r.cost * 1e5) / 1e5,
      tokens_input: r.tokensIn,
      tokens_output: r.tokensOut,
      tokens_reasoning: 0,
      tokens_cache_read: 0,
      tokens_cache_write: 0,
      metadata: null,
    };
  }

  private writeV1Db(s: V1Session, target: "db" | "dev"): void {
    const h = target === "db" ? this.db : this.dev;
    h.run(this.stmts[`${target}.session`] as Database.Statement, this.sessionParams(s.row, s.store));
    const ms = this.stmts[`${target}.message`] as Database.Statement;
    const ps = this.stmts[`${target}.part`] as Database.Statement;
    for (const m of s.messages) {
      h.run(ms, [m.id, s.row.id, m.created, m.updated, JSON.stringify(m.data)]);
      for (const p of m.parts)
        h.run(ps, [p.id, m.id, s.row.id, p.created, p.updated, JSON.stringify(p.data)]);
    }
  }

  private writeStorage(s: V1Session): void {
    const base = path.join(this.dataDir, "storage");
    const r = s.row;
    const info: Json = {
      id: r.id,
      slug: r.slug,
      version: r.version,
      projectID: r.projectId,
      directory: r.directory,
    };
    if (r.parentId !== null) info.parentID = r.parentId;
    info.title = r.title;
    info.time = { created: r.created, updated: r.updated };
    writeWholeFile(path.join(base, "session", r.projectId, `${r.id}.json`), JSON.stringify(info, null, 2));
    this.files++;
    for (const m of s.messages) {
      writeWholeFile(
        path.join(base, "message", r.id, `${m.id}.json`),
        JSON.stringify({ id: m.id, sessionID: r.id, ...m.data }, null, 2),
      );
      this.files++;
      for (const p of m.parts) {
        writeWholeFile(
          path.join(base, "part", m.id, `${p.id}.json`),
          JSON.stringify({ id: p.id, sessionID: r.id, messageID: m.id, ...p.data }, null, 2),
        );
        this.files++;
      }
    }
  }

  private writeStorageProjects(): void {
    const base = path.join(this.dataDir, "storage", "project");
    this.ctx.projects.forEach((dir, i) => {
      const id = this.projectIds[i] as string;
      const info =
        id === "global"
          ? { id, worktree: "/", time: { created: this.ctx.baseTime } }
          : {
              id,
              worktree: dir,
              vcs: "git",
              time: { created: this.ctx.baseTime, initialized: this.ctx.baseTime },
            };
      writeWholeFile(path.join(base, `${id}.json`), JSON.stringify(info, null, 2));
      this.files++;
    });
  }

  private writeSessionV2(r: SessionRow, idleAt: number): void {
    this.db.run(this.stmts["db.session_v2"] as Database.Statement, {
      ...this.sessionParams(r, r.version === "2.0.26" ? "v2" : "db"),
      fork_session_id: null,
      fork_boundary: null,
      time_suspended: null,
      resume_attempts: 0,
      time_idle: idleAt,
      time_viewed: null,
      idle_outcome: "succeeded",
    });
  }

  private writeV2Rows(sessionId: string, rows: readonly V2Row[]): void {
    const st = this.stmts["db.session_message"] as Database.Statement;
    for (const row of rows)
      this.db.run(st, [
        row.id,
        sessionId,
        row.type,
        row.seq,
        row.created,
        row.updated,
        JSON.stringify(row.data),
      ]);
  }

  /** The 2.x migration: the same ids, v1 parts folded into v2 message data (no executed/rawFinish). */
  private migrate(s: V1Session): V2Row[] {
    const rows: V2Row[] = [];
    let seq = 0;
    for (let i = 0; i < s.messages.length; i++) {
      const m = s.messages[i] as V1Message;
      const d = m.data;
      if (d.role === "user") {
        const compaction = m.parts.find((p) => p.data.type === "compaction");
        if (compaction !== undefined) {
          const next = s.messages[i + 1];
          const summary = next?.parts.find((p) => p.data.type === "text")?.data.text ?? "";
          rows.push({
            id: m.id,
            type: "compaction",
            seq: seq++,
            created: m.created,
            updated: m.updated,
            data: { time: { created: m.created }, reason: "auto", summary, recent: [] },
          });
          continue;
        }
        const text = m.parts
          .filter((p) => p.data.type === "text" && p.data.synthetic !== true)
          .map((p) => p.data.text as string)
          .join("\n");
        rows.push({
          id: m.id,
          type: "user",
          seq: seq++,
          created: m.created,
          updated: m.updated,
          data: { text, time: { created: m.created } },
        });
        continue;
      }
      const content: Json[] = [];
      for (const p of m.parts) {
        const pd = p.data;
        if (pd.type === "text") content.push({ type: "text", text: pd.text });
        else if (pd.type === "reasoning")
          content.push({ type: "reasoning", id: p.id, text: pd.text, providerMetadata: {} });
        else if (pd.type === "tool") {
          const st = pd.state as Json;
          const time = st.time as Json;
          const state: Json =
            st.status === "completed"
              ? {
                  status: "completed",
                  input: st.input,
                  content: [{ type: "text", text: st.output }],
                  metadata: st.metadata,
                }
              : { status: "error", input: st.input, error: { type: "tool.execution", message: st.error } };
          content.push({
            type: "tool",
            id: pd.callID,
            name: pd.tool,
            state,
            time: { created: time.start, completed: time.end },
          });
        }
      }
      const model = d.model as Json | undefined;
      const tokens = d.tokens as Json;
      rows.push({
        id: m.id,
        type: "assistant",
        seq: seq++,
        created: m.created,
        updated: m.updated,
        data: {
          agent: d.agent,
          model: {
            providerID: d.providerID ?? model?.providerID,
            id: d.modelID ?? model?.modelID,
            variant: "default",
          },
          content,
          finish: d.finish,
          cost: d.cost,
          tokens: {
            input: tokens.input,
            output: tokens.output,
            reasoning: tokens.reasoning,
            cache: { read: (tokens.cache as Json).read, write: (tokens.cache as Json).write },
          },
          time: d.time,
        },
      });
    }
    return rows;
  }

  // ---------------------------------------------------------------- v2-native messages

  private v2Seq = 0;

  private v2Row(type: string, data: Json, created: number, updated = created): V2Row {
    this.v2Seq += this.rng.range(1, 7);
    return { id: this.ids.make("msg", created), type, seq: this.v2Seq, created, updated, data };
  }

  /** v2 turns appended to `rows` until `target` counted messages; returns child sessions to write. */
  private v2Turns(
    row: SessionRow,
    rows: V2Row[],
    target: number,
    firstPrompt: string | null,
  ): { rows: V2Row[]; children: { row: SessionRow; rows: V2Row[] }[] } {
    const { rng, ctx } = this;
    const children: { row: SessionRow; rows: V2Row[] }[] = [];
    let count = 0;
    const [providerID, id] = rng.pick(MODELS_OPENCODE);
    const agent = rng.chance(0.15) ? "plan" : "build";
    while (count < target) {
      if (count > 0 && firstPrompt === null && this.cov.want(rng, "v2-compaction", 0)) {
        const at = this.tick(1_000, 10_000);
        rows.push(
          this.v2Row(
            "compaction",
            {
              time: { created: at },
              reason: "auto",
              summary: ctx.text.summary(rng),
              recent: rows.slice(-2).map((r) => r.id),
            },
            at,
          ),
        );
        count++;
        this.countMessage();
        continue;
      }
      const userAt = this.tick(20_000, 900_000);
      const isChildPrompt = firstPrompt !== null && count === 0;
      const base = isChildPrompt
        ? `You are a subagent spawned by another session.\n${firstPrompt}`
        : ctx.text.userPrompt(rng);
      const { text, needle } = isChildPrompt
        ? { text: base, needle: false }
        : this.textWithNeedle(base, "user");
      const userRow = this.v2Row(
        "user",
        isChildPrompt ? { time: { created: userAt }, text } : { time: { created: userAt }, text, files: [] },
        userAt,
        userAt + 1,
      );
      rows.push(userRow);
      if (needle) this.recordNeedle(row, "v2", userRow.id, null, userAt);
      count++;
      this.countMessage();
      if (firstPrompt === null && this.cov.want(rng, "shell", 0.04)) {
        const at = this.tick(1_000, 30_000);
        const command = ctx.text.command(rng);
        rows.push(
          this.v2Row(
            "shell",
            {
              time: { created: at, completed: at + rng.range(5, 2000) },
              callID: `call_${rng.base62(20)}`,
              command,
              output: insertLine(
                rng,
                ctx.text.toolOutput(rng, this.sizers.v2.next()),
                ctx.canaries.take("TOOL"),
              ),
            },
            at,
          ),
        );
        count++;
        this.countMessage();
      }
      if ((agent === "plan" || this.cov.has("synthetic")) && this.cov.want(rng, "synthetic", 0.2)) {
        const at = this.tick(5, 50);
        rows.push(this.v2Row("synthetic", { time: { created: at }, text: PLAN_REMINDER }, at));
      }
      let steps =
        target - count <= 2
          ? 0
          : rng.weighted([
              [0, 3],
              [1, 4],
              [2, 2],
            ] as const);
      if (steps === 0 && firstPrompt === null && this.cov.has("subagent") && target - count >= 2) steps = 1;
      for (let s = 0; s < steps && count < target - 1; s++) {
        const content: Json[] = [];
        if (this.cov.want(rng, "reasoning-v2", 0.3))
          content.push({
            type: "reasoning",
            id: this.ids.make("prt", this.clock),
            text: insertLine(rng, ctx.text.thinking(rng), ctx.canaries.take("THINK")),
            providerMetadata: {},
          });
        const childId =
          firstPrompt === null && this.cov.want(rng, "subagent", 0.02)
            ? this.ids.make("ses", this.clock, true)
            : null;
        content.push(this.v2Tool(row, childId));
        const at = this.tick(500, 20_000);
        rows.push(
          this.v2Row(
            "assistant",
            this.v2Assistant(at, agent, providerID, id, content, "tool-calls"),
            at,
            at + rng.range(10, 3000),
          ),
        );
        count++;
        this.countMessage();
        if (childId !== null) {
          const childRow: SessionRow = {
            ...this.newSessionRow(
              { index: 0, messages: 2, start: at, project: this.ctx.projects.indexOf(row.directory), era: 1 },
              "v2",
              row.id,
              ctx.text.title(rng),
            ),
            id: childId,
            agent: "general",
            model: null,
          };
          const savedSeq = this.v2Seq;
          this.v2Seq = 3;
          const child = this.v2Turns(childRow, [], 1, ctx.text.userPrompt(rng));
          this.v2Seq = savedSeq;
          childRow.updated = this.clock;
          children.push({ row: childRow, rows: child.rows });
        }
      }
      const replyText = ctx.text.assistantReply(rng);
      const reply =
        firstPrompt === null
          ? this.textWithNeedle(replyText, "assistant")
          : { text: replyText, needle: false };
      const at = this.tick(500, 20_000);
      const a = this.v2Row(
        "assistant",
        this.v2Assistant(
          at,
          isChildPrompt ? "general" : agent,
          providerID,
          id,
          [{ type: "text", text: reply.text }],
          "stop",
        ),
        at,
        at + rng.range(10, 3000),
      );
      rows.push(a);
      if (reply.needle) this.recordNeedle(row, "v2", a.id, null, at);
      count++;
      this.countMessage();
      const idleAt = this.tick(1, 20);
      rows.push(this.v2Row("idle", { time: { created: idleAt }, outcome: "succeeded" }, idleAt));
    }
    return { rows, children };
  }

  private v2Assistant(
    at: number,
    agent: string,
    providerID: string,
    id: string,
    content: Json[],
    finish: string,
  ): Json {
    const { rng } = this;
    const t = this.tokens();
    return {
      time: { created: at, streamed: at + rng.range(5, 500), completed: at + rng.range(500, 3000) },
      agent,
      model: { id, providerID },
      content,
      finish,
      rawFinish: finish === "stop" ? "stop" : "tool_calls",
      cost: Math.round(rng.next() * 5000) / 100000,
      tokens: { input: t.input, output: t.output, reasoning: 0, cache: t.cache },
    };
  }

  private v2Tool(row: SessionRow, childId: string | null): Json {
    const { rng, ctx } = this;
    const callId = `call_${rng.base62(20)}`;
    const created = this.tick(10, 500);
    const time = { created, ran: created + rng.range(1, 10), completed: created + rng.range(20, 3000) };
    if (childId !== null) {
      return {
        type: "tool",
        id: callId,
        name: "subagent",
        executed: false,
        state: {
          status: "completed",
          input: { agent: "general", description: ctx.text.title(rng), prompt: ctx.text.userPrompt(rng) },
          content: [
            {
              type: "text",
              text: `<subagent sessionID="${childId}" state="completed">\n${ctx.text.sentence(rng)}\n</subagent>`,
            },
          ],
          metadata: { sessionID: childId, status: "completed", truncated: false },
        },
        time,
      };
    }
    if (this.cov.want(rng, "tool-error-v2", 0.05)) {
      const p = `${row.directory}/${ctx.text.file(rng)}`;
      return {
        type: "tool",
        id: callId,
        name: "read",
        executed: false,
        state: {
          status: "error",
          input: { path: p },
          error: { type: "tool.execution", message: `File not found: ${p}` },
        },
        time,
      };
    }
    if (rng.chance(0.6)) {
      const command = ctx.text.command(rng);
      const output = insertLine(
        rng,
        ctx.text.toolOutput(rng, this.sizers.v2.next()),
        `debug ${ctx.canaries.take("TOOL")}`,
      );
      return {
        type: "tool",
        id: callId,
        name: "shell",
        executed: false,
        state: {
          status: "completed",
          input: { command, description: ctx.text.title(rng) },
          content: [{ type: "text", text: output }],
          metadata: { status: "completed", truncated: false, exit: 0 },
        },
        time,
      };
    }
    const p = ctx.text.file(rng);
    const body = insertLine(
      rng,
      ctx.text.codeBody(rng, this.sizers.v2.next()),
      `// ${ctx.canaries.take("TOOL")}`,
    );
    return {
      type: "tool",
      id: callId,
      name: "read",
      executed: false,
      state: {
        status: "completed",
        input: { path: p },
        content: [{ type: "text", text: `Read file ${p}, lines 1-${body.split("\n").length}\n${body}` }],
        metadata: { truncated: false },
      },
      time,
    };
  }

  // ---------------------------------------------------------------- driver

  run(): SourceResult {
    const { ctx, rng } = this;
    const plans = planSessions(rng.fork("plan"), { ...ctx.spec, baseTime: ctx.baseTime, minPerSession: 2 });
    const stores = assignStores(plans, rng.fork("stores"));
    this.openDbs();
    this.writeStorageProjects();
    let importedOne = false;
    for (let i = 0; i < plans.length; i++) {
      const plan = plans[i] as SessionPlan;
      const store = stores[i] as StoreKind;
      this.clock = plan.start;
      if (store === "v2") {
        this.v2Seq = 3;
        const title = this.cov.want(rng, "null-title", 0.1) ? null : ctx.text.title(rng);
        const row = this.newSessionRow(plan, "v2", null, title);
        const { rows, children } = this.v2Turns(row, [], plan.messages, null);
        row.updated = this.clock;
        this.writeSessionV2(row, this.clock);
        this.writeV2Rows(row.id, rows);
        for (const c of children) {
          this.writeSessionV2(c.row, c.row.updated);
          this.writeV2Rows(c.row.id, c.rows);
          this.sessions++;
        }
        this.sessions++;
        continue;
      }
      const built = this.v1Session(plan, store, null);
      for (const s of built) {
        this.sessions++;
        if (store === "storage") {
          this.writeStorage(s);
          if (!importedOne) {
            // The 1.2 importer copied this storage session into opencode.db (readers dedupe on ids).
            this.writeV1Db(s, "db");
            this.writeMigrated(s, false);
          }
        } else if (store === "dev") this.writeV1Db(s, "dev");
        else {
          this.writeV1Db(s, "db");
          this.writeMigrated(s, s === built[0] && this.cov.want(rng, "continued", 0.4));
        }
      }
      if (store === "storage") importedOne = true;
    }
    this.db.close();
    this.dev.close();
    this.files += 2;
    return {
      counts: { sessions: this.sessions, messages: this.messages, files: this.files },
      projectsUsed: [...this.used],
    };
  }

  /** Writes the v2 copy of a v1 session; `continued` sessions get post-upgrade v2 turns appended. */
  private writeMigrated(s: V1Session, continued: boolean): void {
    const rows = this.migrate(s);
    let idleAt = s.row.updated;
    if (continued) {
      this.clock = s.row.updated;
      this.v2Seq = rows.length;
      const at = this.tick(5, 50);
      rows.push(this.v2Row("system", { text: TOOLS_CHANGED, time: { created: at } }, at));
      const sw = this.tick(60_000, 86_400_000);
      rows.push(
        this.v2Row("agent-switched", { time: { created: sw }, agent: "build", previous: "build" }, sw),
      );
      this.v2Turns(s.row, rows, 2, null);
      idleAt = this.clock;
      s.row.updated = this.clock;
    }
    this.writeSessionV2(s.row, idleAt);
    this.writeV2Rows(s.row.id, rows);
  }
}

/** Coverage group of a v1 store: old JSON files, or a 1.x SQLite database. */
function group(store: StoreKind): "storage" | "sqlite" {
  return store === "storage" ? "storage" : "sqlite";
}

/** Which store each session lands in, by era, making sure every store is used when possible. */
function assignStores(plans: readonly SessionPlan[], rng: Rng): StoreKind[] {
  let storageMessages = 0;
  const stores = plans.map((p): StoreKind => {
    if (p.era < 0.3 && storageMessages < 20_000) {
      storageMessages += p.messages;
      return "storage";
    }
    if (p.era >= 0.88) return "v2";
    return rng.chance(0.3) ? "dev" : "db";
  });
  const need: StoreKind[] = ["storage", "db", "dev", "v2"];
  if (plans.length >= need.length) {
    const slots = [0, Math.floor(plans.length / 2), Math.floor(plans.length / 2) + 1, plans.length - 1];
    need.forEach((kind, k) => {
      if (!stores.includes(kind)) stores[slots[k] as number] = kind;
    });
    // v2 needs room for its shapes (subagent, shell, compaction): give it the largest late session.
    const v2Messages = plans.reduce((a, p, i) => a + (stores[i] === "v2" ? p.messages : 0), 0);
    if (v2Messages < 8) {
      let best = -1;
      plans.forEach((p, i) => {
        if (
          p.era >= 0.6 &&
          stores[i] !== "v2" &&
          (best < 0 || p.messages > (plans[best] as SessionPlan).messages)
        )
          best = i;
      });
      if (best >= 0 && stores.filter((s) => s === stores[best]).length > 1) stores[best] = "v2";
    }
  }
  return stores;
}

/** Writes the opencode data directory (storage/ JSON, opencode.db, opencode-dev.db). */
export function generateOpencode(ctx: SourceContext, dataDir: string): SourceResult {
  return new OpencodeGen(ctx, ctx.rng, dataDir).run();
}
