import path from "node:path";
import { Coverage, PayloadSizer, type SourceContext, type SourceResult } from "./context.js";
import { YEAR_MS, iso, planSessions, type SessionPlan } from "./plan.js";
import type { Rng } from "./rng.js";
import { insertLine } from "./text.js";
import { MODELS_CODEX } from "./vocabulary.js";
import { BufferedFileWriter, TeeSink, type TextSink } from "./writer.js";
import { ZstdRawFileSink } from "./zstd-frame.js";

/**
 * Codex CLI rollouts: `<codexHome>/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<uuidv7>.jsonl`
 * (date and time in the file name are LOCAL time, America/Sao_Paulo = UTC−3; record timestamps are
 * UTC), some moved to `archived_sessions/`, some compressed to `.jsonl.zst`, and one thread present
 * as both `.jsonl` and `.jsonl.zst` twins with identical content (docs/sources/codex.md).
 *
 * Two shapes: older files (≤ 0.146) carry event_msg user_message / agent_message / agent_reasoning and
 * no `ordinal`; newer files (0.158) carry top-level `ordinal` and event_msg item_completed with
 * UserMessage / AgentMessage / Reasoning / CommandExecution items. Both have session_meta first,
 * turn_context (model), injected developer and <environment_context> user items, response_item
 * message / reasoning (canary in summary text and encrypted_content) / function_call (arguments as a
 * JSON string) / function_call_output ("Process exited with code N\nOutput:\n…", canary) /
 * custom_tool_call apply_patch (canary in the patch body), and `compacted` with replacement_history.
 * One subagent rollout replays its parent's session_meta (the parent is another demo thread).
 *
 * Message unit: response_item user prompts, assistant messages, function_call(_output) and
 * custom_tool_call(_output) lines (injected context, developer and reasoning items are not counted).
 */

const TZ = "America/Sao_Paulo";
const TZ_OFFSET_MS = -3 * 3600 * 1000;

const BASE_INSTRUCTIONS = [
  "You are Codex, based on GPT-5. You are running as a coding agent in the Codex CLI on a user's computer.",
  "## General",
  "- When searching for text or files, prefer using `rg` or `rg --files` respectively because `rg` is much faster than alternatives like `grep`.",
  "## Editing constraints",
  "- Default to ASCII when editing or creating files. Only introduce non-ASCII or other Unicode characters when there is a clear justification and the file already uses them.",
  "- Add succinct code comments that explain what is going on if code is not self-explanatory.",
  "- You may be in a dirty git worktree. NEVER revert existing changes you did not make unless explicitly requested.",
  "## Plan tool",
  "When using the planning tool: skip using the planning tool for straightforward tasks (roughly the easiest 25%). Do not make single-step plans.",
  "## Presenting your work and final message",
  "You are producing plain text that will later be styled by the CLI. Follow these rules exactly. Formatting should make results easy to scan, but not feel mechanical.",
].join("\n\n");

function pad2(n: number): string {
  return String(n).padStart(2, "0");
}

/** Local-time pieces for the rollout path. */
function localParts(ms: number): { y: string; m: string; d: string; stamp: string } {
  const t = new Date(ms + TZ_OFFSET_MS);
  const y = String(t.getUTCFullYear());
  const m = pad2(t.getUTCMonth() + 1);
  const d = pad2(t.getUTCDate());
  return {
    y,
    m,
    d,
    stamp: `${y}-${m}-${d}T${pad2(t.getUTCHours())}-${pad2(t.getUTCMinutes())}-${pad2(t.getUTCSeconds())}`,
  };
}

interface ThreadInfo {
  id: string;
  plan: SessionPlan;
  modern: boolean;
  version: string;
  /** Index of the parent thread when this one is a spawned subagent. */
  parent: number | null;
  children: number[];
  placement: "sessions" | "archived" | "zst" | "twin";
  meta: Record<string, unknown> | null;
}

type Json = Record<string, unknown>;

class CodexRollout {
  private line = 0;
  private clock: number;
  private readonly cwd: string;
  private readonly model: string;
  private turnId = "";
  private turns = 0;
  count = 0;

  constructor(
    private readonly ctx: SourceContext,
    private readonly rng: Rng,
    private readonly cov: Coverage,
    private readonly sizer: PayloadSizer,
    private readonly out: TextSink,
    private readonly info: ThreadInfo,
    private readonly relPath: string,
    private readonly threads: readonly ThreadInfo[],
    private readonly baseOrdinal: number,
  ) {
    this.clock = info.plan.start;
    this.cwd = ctx.projects[info.plan.project] as string;
    this.model = rng.pick(MODELS_CODEX);
  }

  private tick(minMs: number, maxMs: number): number {
    this.clock += this.rng.range(minMs, maxMs);
    return this.clock;
  }

  /** Writes one rollout line and returns its 0-based line ordinal. */
  private emit(type: string, payload: Json, extra?: Json): number {
    const n = this.line++;
    const rec: Json = { timestamp: iso(this.clock) };
    if (this.info.modern) rec.ordinal = n;
    if (extra !== undefined) Object.assign(rec, extra);
    rec.type = type;
    rec.payload = payload;
    this.out.write(JSON.stringify(rec) + "\n");
    return n;
  }

  private countMessage(): void {
    this.count++;
    this.ctx.progress.add(1);
  }

  private sessionMeta(): Json {
    const { rng, info } = this;
    const meta: Json = {
      id: info.id,
      session_id: info.parent !== null ? this.rootId(info) : info.id,
      timestamp: iso(this.clock),
      cwd: this.cwd,
      originator:
        info.parent !== null
          ? "codex_cli_rs"
          : rng.pick(["codex_cli_rs", "codex_cli_rs", "codex_exec", "codex_vscode"]),
      cli_version: info.version,
      source: "cli",
      thread_source: "user",
      model_provider: "openai",
      base_instructions: {
        text: rng.chance(0.03) ? (BASE_INSTRUCTIONS + "\n\n").repeat(14) : BASE_INSTRUCTIONS,
      },
      git: {
        commit_hash: rng.hex(20),
        branch: rng.pick(["main", "main", "feat/rollout-search", "fix/ERR_SOCKET_TIMEOUT"]),
        repository_url: `https://example.invalid/acme/${path.basename(this.cwd)}.git`,
      },
    };
    if (info.parent !== null) {
      const parent = this.threads[info.parent] as ThreadInfo;
      meta.parent_thread_id = parent.id;
      meta.source = {
        subagent: {
          thread_spawn: {
            parent_thread_id: parent.id,
            depth: 1,
            agent_path: null,
            agent_nickname: "Sagan",
            agent_role: "explorer",
          },
        },
      };
      meta.thread_source = "subagent";
      meta.agent_nickname = "Sagan";
      meta.agent_role = "explorer";
    }
    if (info.modern) {
      meta.history_mode = "paginated";
      meta.context_window = { window_id: rng.uuid7(this.clock) };
    }
    return meta;
  }

  private rootId(info: ThreadInfo): string {
    let t = info;
    while (t.parent !== null) t = this.threads[t.parent] as ThreadInfo;
    return t.id;
  }

  run(): void {
    const { info, rng } = this;
    const meta = this.sessionMeta();
    this.emit("session_meta", meta);
    // Keep the payload only while a child still has to replay it (bounded memory at scale).
    if (info.children.length > 0) info.meta = meta;
    if (info.parent !== null) {
      // Subagent threads start by replaying the parent's items, including its session_meta.
      const parent = this.threads[info.parent] as ThreadInfo;
      if (parent.meta !== null) this.emit("session_meta", parent.meta);
      if (parent.children[parent.children.length - 1] === info.plan.index) parent.meta = null;
    }
    const target = info.plan.messages;
    const compactAt =
      target >= 12 && (this.cov.has("compacted") || (target >= 60 && rng.chance(0.5)))
        ? Math.floor(target / 2)
        : -1;
    let first = true;
    let compacted = false;
    const prompts: string[] = [];
    while (this.count < target) {
      if (!compacted && compactAt >= 0 && this.count >= compactAt) {
        this.compacted(prompts);
        this.cov.done("compacted");
        compacted = true;
      }
      prompts.push(this.turn(first, target - this.count));
      first = false;
    }
    if (info.modern && rng.chance(0.5))
      this.emit("event_msg", {
        type: "thread_name_updated",
        thread_id: info.id,
        thread_name: this.ctx.text.title(rng),
      });
  }

  private turn(first: boolean, remaining: number): string {
    const { rng, ctx, info } = this;
    this.turnId = rng.uuid7(this.tick(30_000, 900_000));
    this.turns++;
    this.emit("event_msg", {
      type: "task_started",
      turn_id: this.turnId,
      started_at: Math.floor(this.clock / 1000),
      model_context_window: 258400,
      collaboration_mode_kind: "default",
    });
    if (first) {
      this.emit("response_item", {
        type: "message",
        role: "developer",
        content: [
          {
            type: "input_text",
            text: "<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. `sandbox_mode` is `workspace-write`.\n</permissions instructions>",
          },
        ],
      });
      this.emit("response_item", {
        type: "message",
        role: "user",
        content: [
          {
            type: "input_text",
            text: `<environment_context>\n  <cwd>${this.cwd}</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>bash</shell>\n  <current_date>${iso(this.clock).slice(0, 10)}</current_date>\n  <timezone>${TZ}</timezone>\n</environment_context>`,
          },
        ],
      });
    }
    this.emit("turn_context", {
      turn_id: this.turnId,
      root_turn_id: this.turnId,
      cwd: this.cwd,
      workspace_roots: [this.cwd],
      approval_policy: "on-request",
      sandbox_policy: { type: "workspace-write", writable_roots: [this.cwd], network_access: false },
      model: this.model,
      effort: rng.pick(["low", "medium", "high"]),
      summary: "auto",
      current_date: iso(this.clock).slice(0, 10),
      timezone: TZ,
    });

    // The user's prompt: response_item plus its event_msg twin.
    let prompt = ctx.text.userPrompt(rng);
    let needle = false;
    if (ctx.needles.due(this.baseOrdinal + this.count, "user")) {
      const s = ctx.needles.plant("user").sentence;
      prompt = rng.chance(0.5) ? `${s} ${prompt}` : `${prompt} ${s}`;
      needle = true;
    }
    this.tick(500, 20_000);
    const msgLine = this.emit(
      "response_item",
      { type: "message", role: "user", content: [{ type: "input_text", text: prompt }] },
      info.modern ? { metadata: { client_authored: true, user_input_order: this.turns } } : undefined,
    );
    this.countMessage();
    const eventLine = info.modern
      ? this.emit("event_msg", {
          type: "item_completed",
          thread_id: info.id,
          turn_id: this.turnId,
          started_at_ms: this.clock,
          completed_at_ms: this.clock,
          item: {
            type: "UserMessage",
            id: rng.uuid7(this.clock),
            content: [{ type: "text", text: prompt, text_elements: [] }],
          },
        })
      : this.emit("event_msg", {
          type: "user_message",
          message: prompt,
          images: [],
          local_images: [],
          text_elements: [],
          kind: "plain",
        });
    if (needle) this.recordNeedle(msgLine, eventLine);

    const steps =
      remaining <= 3
        ? 0
        : Math.min(
            rng.weighted([
              [0, 2],
              [1, 4],
              [2, 3],
              [3, 1],
            ] as const),
            Math.floor((remaining - 2) / 2),
          );
    for (let s = 0; s < steps; s++) this.toolStep();
    for (const child of info.children) {
      if (!this.spawned.has(child)) {
        this.spawned.add(child);
        this.spawn(child);
      }
    }
    return this.reply(prompt);
  }

  private readonly spawned = new Set<number>();

  private spawn(child: number): void {
    const c = this.threads[child] as ThreadInfo;
    this.emit("event_msg", {
      type: "collab_agent_spawn_end",
      call_id: `call_${this.rng.base62(24)}`,
      sender_thread_id: this.info.id,
      new_thread_id: c.id,
      new_agent_nickname: "Sagan",
      new_agent_role: "explorer",
      prompt: this.ctx.text.userPrompt(this.rng),
      model: this.model,
      status: "completed",
    });
  }

  private reasoning(): void {
    const { rng, ctx, info } = this;
    const summary = insertLine(rng, ctx.text.thinking(rng), ctx.canaries.take("REASON"));
    this.tick(200, 8_000);
    this.emit("response_item", {
      type: "reasoning",
      summary: [{ type: "summary_text", text: summary }],
      content: null,
      encrypted_content: `gAAAAAB${rng.base64(rng.range(200, 900))}${ctx.canaries.take("ENC")}${rng.base64(rng.range(100, 400))}`,
    });
    if (info.modern) {
      this.emit("event_msg", {
        type: "item_completed",
        thread_id: info.id,
        turn_id: this.turnId,
        started_at_ms: this.clock,
        completed_at_ms: this.clock,
        item: { type: "Reasoning", id: `rs_${rng.hex(12)}`, summary_text: [summary], raw_content: [] },
      });
    } else {
      this.emit("event_msg", { type: "agent_reasoning", text: summary });
    }
  }

  private toolStep(): void {
    const { rng, ctx, info } = this;
    if (rng.chance(0.6)) this.reasoning();
    const callId = `call_${rng.base62(24)}`;
    if (rng.chance(0.2)) {
      const file = ctx.text.file(rng);
      const body = insertLine(
        rng,
        ctx.text.codeBody(rng, this.sizer.next()),
        `// ${ctx.canaries.take("WRITE")}`,
      );
      const patch = `*** Begin Patch\n*** Update File: ${file}\n@@\n${body
        .split("\n")
        .map((l) => `+${l}`)
        .join("\n")}\n*** End Patch\n`;
      this.tick(1_000, 30_000);
      this.emit("response_item", {
        type: "custom_tool_call",
        status: "completed",
        call_id: callId,
        name: "apply_patch",
        input: patch,
      });
      this.countMessage();
      this.tick(50, 2_000);
      this.emit("response_item", {
        type: "custom_tool_call_output",
        call_id: callId,
        output: JSON.stringify({
          output: `Success. Updated the following files:\nM ${file}\n`,
          metadata: { exit_code: 0, duration_seconds: 0.1 },
        }),
      });
      this.countMessage();
      if (!info.modern)
        this.emit("event_msg", {
          type: "patch_apply_end",
          call_id: callId,
          stdout: `Success. Updated the following files:\nM ${file}\n`,
          stderr: "",
          success: true,
        });
      return;
    }
    const command = ctx.text.command(rng);
    const name = info.modern ? "exec_command" : "shell";
    const args = info.modern
      ? { cmd: command, workdir: this.cwd }
      : { command: ["bash", "-lc", command], workdir: this.cwd, timeout_ms: 120000 };
    this.tick(1_000, 30_000);
    this.emit("response_item", {
      type: "function_call",
      name,
      arguments: JSON.stringify(args),
      call_id: callId,
    });
    this.countMessage();
    const failed = this.cov.want(rng, "exit-error", 0.1);
    const exit = failed ? rng.pick([1, 2, 127]) : 0;
    const body = failed
      ? `${ctx.text.errorCode(rng)}: ${ctx.text.sentence(rng)}`
      : insertLine(rng, ctx.text.toolOutput(rng, this.sizer.next()), `debug ${ctx.canaries.take("TOOL")}`);
    const wall = (rng.range(1, 9000) / 1000).toFixed(4);
    const duration = this.tick(50, 9_000);
    if (info.modern) {
      this.emit("event_msg", {
        type: "item_completed",
        thread_id: info.id,
        turn_id: this.turnId,
        started_at_ms: duration - 50,
        completed_at_ms: duration,
        item: {
          type: "CommandExecution",
          id: callId,
          command: ["/usr/bin/bash", "-lc", command],
          cwd: this.cwd,
          exit_code: exit,
          stdout: body,
          stderr: "",
          aggregated_output: body,
          parsed_cmd: [{ type: "unknown", cmd: command }],
          duration: { secs: Math.floor(Number(wall)), nanos: 0 },
          status: failed ? "failed" : "completed",
        },
      });
    }
    this.emit("response_item", {
      type: "function_call_output",
      call_id: callId,
      output: `Chunk ID: ${rng.hex(3)}\nWall time: ${wall} seconds\nProcess exited with code ${exit}\nOriginal token count: ${Math.ceil(body.length / 4)}\nOutput:\n${body}\n`,
    });
    this.countMessage();
    this.emit("event_msg", {
      type: "token_count",
      info: {
        total_token_usage: {
          input_tokens: rng.range(1000, 90000),
          cached_input_tokens: rng.range(0, 50000),
          output_tokens: rng.range(10, 4000),
          reasoning_output_tokens: rng.range(0, 2000),
          total_tokens: rng.range(2000, 100000),
        },
        last_token_usage: {
          input_tokens: rng.range(100, 9000),
          cached_input_tokens: 0,
          output_tokens: rng.range(10, 900),
          reasoning_output_tokens: 0,
          total_tokens: rng.range(200, 9900),
        },
        model_context_window: 258400,
      },
      rate_limits: null,
    });
  }

  private reply(prompt: string): string {
    const { rng, ctx, info } = this;
    if (rng.chance(0.4)) this.reasoning();
    let text = ctx.text.assistantReply(rng);
    let needle = false;
    if (ctx.needles.due(this.baseOrdinal + this.count, "assistant")) {
      const s = ctx.needles.plant("assistant").sentence;
      text = rng.chance(0.5) ? `${s}\n\n${text}` : `${text}\n\n${s}`;
      needle = true;
    }
    this.tick(1_000, 60_000);
    const eventLine = info.modern
      ? this.emit("event_msg", {
          type: "item_completed",
          thread_id: info.id,
          turn_id: this.turnId,
          started_at_ms: this.clock,
          completed_at_ms: this.clock,
          item: {
            type: "AgentMessage",
            id: `msg_${rng.hex(16)}`,
            content: [{ type: "Text", text }],
            phase: "final_answer",
          },
        })
      : this.emit("event_msg", { type: "agent_message", message: text, phase: "final_answer" });
    const msgLine = this.emit("response_item", {
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text }],
    });
    this.countMessage();
    if (needle) this.recordNeedle(msgLine, eventLine);
    this.emit("event_msg", {
      type: "task_complete",
      turn_id: this.turnId,
      last_agent_message: text,
      started_at: Math.floor(this.clock / 1000) - 30,
      completed_at: Math.floor(this.clock / 1000),
      duration_ms: rng.range(2_000, 600_000),
    });
    return prompt;
  }

  private compacted(prompts: readonly string[]): void {
    const { rng, ctx } = this;
    this.tick(1_000, 20_000);
    const windowId = rng.uuid7(this.clock);
    this.emit("compacted", {
      message: ctx.text.summary(rng),
      replacement_history: prompts
        .slice(-3)
        .map((p) => ({ type: "message", role: "user", content: [{ type: "input_text", text: p }] })),
      window_number: 2,
      window_id: windowId,
      previous_window_id: null,
      first_window_id: windowId,
    });
    this.emit("event_msg", { type: "context_compacted" });
  }

  private recordNeedle(line: number, eventLine: number): void {
    this.ctx.needles.record({
      session: this.info.id,
      project: this.cwd,
      at: this.clock,
      ref: { path: this.relPath, line, eventLine },
    });
  }
}

/** Writes every Codex rollout of the plan under `codexHome`. */
export function generateCodex(ctx: SourceContext, codexHome: string): SourceResult {
  const { rng } = ctx;
  const plans = planSessions(rng.fork("plan"), { ...ctx.spec, baseTime: ctx.baseTime, minPerSession: 2 });
  const layout = rng.fork("layout");
  const spanEnd = ctx.baseTime + YEAR_MS;
  const threads: ThreadInfo[] = plans.map((plan) => {
    const modern = plan.era >= 0.55;
    const version = modern
      ? plan.era >= 0.8
        ? "0.158.0"
        : "0.152.0"
      : plan.era < 0.25
        ? "0.98.0"
        : plan.era < 0.45
          ? "0.121.0"
          : "0.146.0";
    return {
      id: layout.uuid7(plan.start),
      plan,
      modern,
      version,
      parent: null,
      children: [],
      placement: "sessions",
      meta: null,
    };
  });
  // One spawned subagent whose parent is the previous demo thread (more at larger scale).
  let haveChild = false;
  for (let i = 1; i < threads.length; i++) {
    const t = threads[i] as ThreadInfo;
    if (t.modern && (!haveChild || layout.chance(0.03))) {
      t.parent = i - 1;
      (threads[i - 1] as ThreadInfo).children.push(i);
      haveChild = true;
    }
  }
  // Placement: one twin (.jsonl + .jsonl.zst), some archived, some compressed (idle ≥ 7 days).
  const cov = new Coverage(["twin", "archived", "zst"]);
  for (const t of threads) {
    const old = t.plan.start < spanEnd - 7 * 24 * 3600 * 1000;
    const linked = t.parent !== null || t.children.length > 0;
    if (!linked && cov.want(layout, "twin", 0)) t.placement = "twin";
    else if (cov.want(layout, "archived", 0.08)) t.placement = "archived";
    else if (old && cov.want(layout, "zst", 0.2)) t.placement = "zst";
  }

  const stepCov = new Coverage(["compacted", "exit-error"]);
  const sizer = new PayloadSizer(rng.fork("sizes"), 2);
  let messages = 0;
  let files = 0;
  const used = new Set<string>();
  for (const t of threads) {
    const lp = localParts(t.plan.start);
    const name = `rollout-${lp.stamp}-${t.id}.jsonl`;
    const datedRel = path.posix.join(".codex", "sessions", lp.y, lp.m, lp.d, name);
    const rel =
      t.placement === "archived"
        ? path.posix.join(".codex", "archived_sessions", name)
        : t.placement === "zst"
          ? `${datedRel}.zst`
          : datedRel;
    const abs = path.join(codexHome, ...rel.split("/").slice(1));
    let out: TextSink;
    if (t.placement === "zst") out = new ZstdRawFileSink(abs);
    else if (t.placement === "twin")
      out = new TeeSink([new BufferedFileWriter(abs), new ZstdRawFileSink(`${abs}.zst`)]);
    else out = new BufferedFileWriter(abs);
    files += t.placement === "twin" ? 2 : 1;
    const rollout = new CodexRollout(
      ctx,
      rng.fork(`thread-${t.plan.index}`),
      stepCov,
      sizer,
      out,
      t,
      rel,
      threads,
      messages,
    );
    rollout.run();
    out.close();
    messages += rollout.count;
    used.add(ctx.projects[t.plan.project] as string);
  }
  return { counts: { sessions: threads.length, messages, files }, projectsUsed: [...used] };
}
