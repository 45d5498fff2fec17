import path from "node:path";
import { Coverage, PayloadSizer, type SourceContext, type SourceResult } from "./context.js";
import { DEMO_HOME, claudeSlug, iso, planSessions, type SessionPlan } from "./plan.js";
import type { Rng } from "./rng.js";
import { insertLine } from "./text.js";
import { MODELS_CLAUDE } from "./vocabulary.js";
import { BufferedFileWriter, writeWholeFile } from "./writer.js";

/**
 * Claude Code transcripts: `<configDir>/projects/<slug(cwd)>/<sessionId>.jsonl`, one record per line,
 * tree-linked by uuid/parentUuid (see docs/sources/claude-code.md).
 *
 * Covered: user prompts (string and block content, an image block with base64), assistant responses
 * split into one line per content block sharing message.id + requestId, thinking blocks (canary),
 * tool_use / tool_result (canary in results; some is_error with an error first line), Write bodies
 * (canary), Task subagents in both layouts (2.1.2+ `<sid>/subagents/agent-<id>.jsonl` + `.meta.json`,
 * older flat `agent-<id>.jsonl`), `<sid>/tool-results/<tool_use_id>.txt` for big outputs, compaction
 * (compact_boundary + isCompactSummary), summary / ai-title / last-prompt lines, attachments and
 * `<system-reminder>` context, local-command caveat lines.
 *
 * Message unit: every `user` or `assistant` line (tool results, compaction summaries and sidechain
 * lines included).
 */

interface Era {
  version: string;
  /** 2.1.2+: subagents/ folder, tool-results/ side files, attachments, entrypoint. */
  modern: boolean;
}

function eraFor(era: number): Era {
  if (era < 0.2) return { version: "1.0.119", modern: false };
  if (era < 0.45) return { version: "2.0.9", modern: false };
  if (era < 0.7) return { version: "2.1.111", modern: true };
  return { version: "2.1.284", modern: true };
}

const BRANCHES = ["main", "main", "feature/search-ranking", "fix/socket-timeout", "HEAD", "release/2.3"];
const PERSIST_THRESHOLD = 30_000;

type Line = Record<string, unknown>;

class ClaudeSession {
  private out: BufferedFileWriter;
  private readonly sessionId: string;
  private readonly cwd: string;
  private readonly slug: string;
  private readonly era: Era;
  private readonly gitBranch: string;
  private readonly model: string;
  private clock: number;
  private parent: string | null = null;
  private lastPrompt = "";
  /** Messages written by this session (including sidechains). */
  count = 0;
  files = 1;

  constructor(
    private readonly ctx: SourceContext,
    private readonly rng: Rng,
    private readonly cov: Coverage,
    private readonly sizer: PayloadSizer,
    private readonly projectsDir: string,
    private readonly plan: SessionPlan,
    /** Running message ordinal of the source when this session starts (for needle targets). */
    private readonly baseOrdinal: number,
  ) {
    this.sessionId = rng.uuid4();
    this.cwd = ctx.projects[plan.project] as string;
    this.slug = claudeSlug(this.cwd);
    this.era = eraFor(plan.era);
    this.gitBranch = rng.pick(BRANCHES);
    this.model = rng.pick(MODELS_CLAUDE);
    this.clock = plan.start;
    this.out = new BufferedFileWriter(path.join(projectsDir, this.slug, `${this.sessionId}.jsonl`));
  }

  private tick(minMs: number, maxMs: number): number {
    this.clock += this.rng.range(minMs, maxMs);
    return this.clock;
  }

  private emit(line: Line, out: BufferedFileWriter = this.out): void {
    out.write(JSON.stringify(line) + "\n");
  }

  /** Envelope fields shared by conversation lines, in Claude Code's own key order. */
  private envelope(parentUuid: string | null, sidechain: { agentId: string } | null): Line {
    const env: Line = {
      parentUuid,
      isSidechain: sidechain !== null,
      userType: "external",
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: this.era.version,
      gitBranch: this.gitBranch,
    };
    if (sidechain !== null) env.agentId = sidechain.agentId;
    if (this.era.modern) env.entrypoint = "cli";
    return env;
  }

  run(): void {
    const { rng, plan } = this;
    if (!this.era.modern && rng.chance(0.4)) {
      this.emit({ type: "summary", summary: this.ctx.text.title(rng), leafUuid: rng.uuid4() });
    }
    const compactAt =
      plan.messages >= 10 && (this.cov.has("compaction") || (plan.messages >= 60 && rng.chance(0.6)))
        ? Math.floor(plan.messages / 2)
        : -1;
    let compacted = false;
    while (this.count < plan.messages) {
      if (!compacted && compactAt >= 0 && this.count >= compactAt) {
        this.compaction();
        this.cov.done("compaction");
        compacted = true;
      }
      this.turn(plan.messages - this.count);
    }
    if (this.era.modern) {
      this.emit({ type: "ai-title", sessionId: this.sessionId, aiTitle: this.ctx.text.title(rng) });
      if (rng.chance(0.2))
        this.emit({ type: "custom-title", sessionId: this.sessionId, customTitle: this.ctx.text.title(rng) });
      this.emit({
        type: "last-prompt",
        lastPrompt: this.lastPrompt.slice(0, 200),
        leafUuid: this.parent,
        sessionId: this.sessionId,
      });
    }
    // Dated by its last line, as Claude Code left it: an old transcript is not being written.
    this.out.close(this.clock);
  }

  private ordinal(): number {
    return this.baseOrdinal + this.count;
  }

  private countMessage(n = 1): void {
    this.count += n;
    this.ctx.progress.add(n);
  }

  private userPromptText(): { text: string; needle: string | null } {
    const { ctx, rng } = this;
    let text = ctx.text.userPrompt(rng);
    let needle: string | null = null;
    if (ctx.needles.due(this.ordinal(), "user")) {
      needle = ctx.needles.plant("user").sentence;
      text = rng.chance(0.5) ? `${needle} ${text}` : `${text} ${needle}`;
    }
    return { text, needle };
  }

  private turn(remaining: number): void {
    const { rng, ctx } = this;
    if (rng.chance(0.04)) this.localCommand();
    const { text, needle } = this.userPromptText();
    this.lastPrompt = text;
    const uuid = rng.uuid4();
    const at = this.tick(20_000, 600_000);
    let content: unknown = text;
    if (this.cov.want(rng, "image", 0.02)) {
      content = [
        { type: "image", source: { type: "base64", media_type: "image/png", data: this.fakePng() } },
        { type: "text", text },
      ];
    } else if (!this.era.modern && rng.chance(0.1)) {
      content = [
        {
          type: "text",
          text: `<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# claudeMd\nCodebase and user instructions are shown below. ${ctx.text.sentence(rng)}\n</system-reminder>`,
        },
        { type: "text", text },
      ];
    }
    const line: Line = {
      ...this.envelope(this.parent, null),
      type: "user",
      message: { role: "user", content },
      uuid,
      timestamp: iso(at),
    };
    if (this.era.modern) {
      line.promptId = rng.uuid4();
      line.permissionMode = "default";
    } else {
      line.thinkingMetadata = { level: "none", disabled: false, triggers: [] };
    }
    this.emit(line);
    if (needle !== null) this.recordNeedle(uuid, at);
    this.parent = uuid;
    this.countMessage();
    if (this.era.modern) this.attachments();

    const toolSteps =
      remaining <= 3
        ? 0
        : Math.min(
            rng.weighted([
              [0, 3],
              [1, 4],
              [2, 2],
              [3, 1],
            ] as const),
            Math.floor((remaining - 2) / 3),
          );
    for (let s = 0; s < toolSteps; s++) this.assistantStep(true);
    this.assistantStep(false);
  }

  private recordNeedle(uuid: string, at: number): void {
    this.ctx.needles.record({
      session: this.sessionId,
      project: this.cwd,
      at,
      ref: { path: path.posix.join(".claude", "projects", this.slug, `${this.sessionId}.jsonl`), uuid },
    });
  }

  private fakePng(): string {
    const { rng } = this;
    return `iVBORw0KGgoAAAANSUhEUgAA${rng.base64(rng.range(200, 1200))}${this.ctx.canaries.take("B64")}${rng.base64(rng.range(100, 600))}==`;
  }

  private localCommand(): void {
    const { rng } = this;
    const caveat = rng.uuid4();
    this.emit({
      ...this.envelope(this.parent, null),
      type: "user",
      message: {
        role: "user",
        content:
          "Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.",
      },
      isMeta: true,
      uuid: caveat,
      timestamp: iso(this.tick(1_000, 60_000)),
    });
    const cmd = rng.uuid4();
    this.emit({
      ...this.envelope(caveat, null),
      type: "user",
      message: {
        role: "user",
        content:
          "<command-name>/clear</command-name>\n            <command-message>clear</command-message>\n            <command-args></command-args>",
      },
      uuid: cmd,
      timestamp: iso(this.tick(5, 50)),
    });
    this.parent = cmd;
    this.countMessage(2);
  }

  private attachments(): void {
    const { rng, ctx } = this;
    const n = rng.weighted([
      [0, 5],
      [1, 3],
      [2, 1],
    ] as const);
    for (let i = 0; i < n; i++) {
      const uuid = rng.uuid4();
      const kind = rng.pick(["date", "nested_memory", "todo_reminder", "edited_text_file"] as const);
      const attachment: Line = { type: kind };
      let rendered: string;
      if (kind === "date")
        rendered = `<system-reminder>\nToday's date is ${iso(this.clock).slice(0, 10)}.\n</system-reminder>`;
      else if (kind === "nested_memory") {
        attachment.path = `${this.cwd}/CLAUDE.md`;
        rendered = `<system-reminder>\nContents of ${this.cwd}/CLAUDE.md (project instructions):\n${ctx.text.sentence(rng)}\n</system-reminder>`;
      } else if (kind === "todo_reminder")
        rendered = `<system-reminder>\nThe todo list is empty. ${ctx.text.sentence(rng)}\n</system-reminder>`;
      else {
        attachment.filename = `${this.cwd}/${ctx.text.file(rng)}`;
        rendered = `<system-reminder>\nNote: the file was modified by the user or a linter.\n</system-reminder>`;
      }
      this.emit({
        ...this.envelope(this.parent, null),
        type: "attachment",
        attachment,
        rendered: [{ content: rendered }],
        uuid,
        timestamp: iso(this.tick(1, 20)),
      });
      this.parent = uuid;
    }
  }

  private usage(): Line {
    const { rng } = this;
    return {
      input_tokens: rng.range(3, 4000),
      cache_creation_input_tokens: rng.range(0, 3000),
      cache_read_input_tokens: rng.range(0, 90_000),
      cache_creation: { ephemeral_5m_input_tokens: rng.range(0, 3000), ephemeral_1h_input_tokens: 0 },
      output_tokens: rng.range(1, 2000),
      service_tier: "standard",
    };
  }

  /**
   * One API response, written as one line per content block (same message.id + requestId), followed
   * by the tool_result line of each tool_use.
   */
  private assistantStep(
    withTools: boolean,
    sidechain: { agentId: string; out: BufferedFileWriter } | null = null,
  ): string {
    const { rng, ctx } = this;
    const msgId = `msg_01${rng.base62(22)}`;
    const requestId = `req_011C${rng.base62(20)}`;
    const blocks: Line[] = [];
    let needleAt = -1;
    if (rng.chance(this.era.modern ? 0.45 : 0.25)) {
      blocks.push({
        type: "thinking",
        thinking: insertLine(rng, ctx.text.thinking(rng), ctx.canaries.take("THINK")),
        signature: rng.base64(rng.range(80, 400)),
      });
    }
    let finalText = "";
    if (withTools) {
      if (rng.chance(0.5)) blocks.push({ type: "text", text: ctx.text.sentence(rng) });
      const tools = rng.chance(0.15) ? 2 : 1;
      for (let i = 0; i < tools; i++) blocks.push(this.toolUse(sidechain !== null));
    } else {
      finalText = ctx.text.assistantReply(rng);
      if (sidechain === null && ctx.needles.due(this.ordinal() + blocks.length, "assistant")) {
        const s = ctx.needles.plant("assistant").sentence;
        finalText = rng.chance(0.5) ? `${s}\n\n${finalText}` : `${finalText}\n\n${s}`;
        needleAt = blocks.length;
      }
      blocks.push({ type: "text", text: finalText });
    }
    const out = sidechain?.out ?? this.out;
    const stopReason = withTools ? "tool_use" : "end_turn";
    const lineUuids: string[] = [];
    for (let i = 0; i < blocks.length; i++) {
      const uuid = rng.uuid4();
      const at = this.tick(i === 0 ? 1_500 : 5, i === 0 ? 40_000 : 400);
      this.emit(
        {
          ...this.envelope(this.parent, sidechain),
          message: {
            id: msgId,
            type: "message",
            role: "assistant",
            model: this.model,
            content: [blocks[i]],
            stop_reason: i === blocks.length - 1 ? stopReason : null,
            stop_sequence: null,
            usage: this.usage(),
          },
          requestId,
          type: "assistant",
          uuid,
          timestamp: iso(at),
        },
        out,
      );
      if (i === needleAt) this.recordNeedle(uuid, at);
      this.parent = uuid;
      lineUuids.push(uuid);
      this.countMessage();
    }
    for (let i = 0; i < blocks.length; i++) {
      const b = blocks[i] as Line;
      if (b.type === "tool_use") this.toolResult(b, lineUuids[i] as string, sidechain, out);
    }
    return finalText;
  }

  private taskCoverage(): string {
    return this.era.modern ? "task-modern" : "task-flat";
  }

  private toolUse(inSidechain: boolean): Line {
    const { rng, ctx } = this;
    const id = `toolu_01${rng.base62(22)}`;
    const kind = inSidechain
      ? rng.pick(["Bash", "Read", "Grep"] as const)
      : rng.weighted([
          ["Bash", 5],
          ["Read", 3],
          ["Edit", 2],
          ["Write", 1],
          ["Grep", 1],
          ["Task", this.cov.has(this.taskCoverage()) ? 50 : 0.4],
        ] as const);
    const file = `${this.cwd}/${ctx.text.file(rng)}`;
    switch (kind) {
      case "Bash":
        return {
          type: "tool_use",
          id,
          name: "Bash",
          input: { command: ctx.text.command(rng), description: ctx.text.title(rng) },
        };
      case "Read":
        return { type: "tool_use", id, name: "Read", input: { file_path: file } };
      case "Grep":
        return {
          type: "tool_use",
          id,
          name: "Grep",
          input: { pattern: ctx.text.zipfWord(rng), path: this.cwd, output_mode: "content" },
        };
      case "Edit":
        return {
          type: "tool_use",
          id,
          name: "Edit",
          input: {
            file_path: file,
            old_string: ctx.text.codeBody(rng, 120),
            new_string: ctx.text.codeBody(rng, 160),
          },
        };
      case "Write": {
        const size = this.sizer.next();
        const body = insertLine(rng, ctx.text.codeBody(rng, size), `// ${ctx.canaries.take("WRITE")}`);
        return { type: "tool_use", id, name: "Write", input: { file_path: file, content: body } };
      }
      case "Task":
        this.cov.done(this.taskCoverage());
        return {
          type: "tool_use",
          id,
          name: "Task",
          input: {
            description: ctx.text.title(rng),
            prompt: ctx.text.userPrompt(rng),
            subagent_type: "general-purpose",
          },
        };
    }
  }

  private toolResult(
    use: Line,
    assistantUuid: string,
    sidechain: { agentId: string; out: BufferedFileWriter } | null,
    out: BufferedFileWriter,
  ): void {
    const { rng, ctx } = this;
    const name = use.name as string;
    const id = use.id as string;
    const input = use.input as Record<string, string>;
    let content: unknown;
    let toolUseResult: unknown;
    let isError = false;
    if (name === "Bash" && this.cov.want(rng, "bash-error", 0.08)) {
      isError = true;
      const code = ctx.text.errorCode(rng);
      content = `Exit code 1\nError: ${code} while running ${input.command}\n${ctx.text.sentence(rng)}`;
      toolUseResult = `Error: Exit code 1\nError: ${code} while running ${input.command}`;
    } else if (name === "Bash" || name === "Grep") {
      let size = this.sizer.next();
      if (name === "Bash" && this.era.modern && sidechain === null && this.cov.has("tool-results-file"))
        size = Math.max(size, 40_000);
      const output = insertLine(rng, ctx.text.toolOutput(rng, size), `trace-id ${ctx.canaries.take("TOOL")}`);
      if (this.era.modern && output.length > PERSIST_THRESHOLD && sidechain === null) {
        const rel = `${this.slug}/${this.sessionId}/tool-results/${id}.txt`;
        writeWholeFile(
          path.join(this.projectsDir, this.slug, this.sessionId, "tool-results", `${id}.txt`),
          output,
        );
        this.files++;
        this.cov.done("tool-results-file");
        const shown = `${DEMO_HOME}/.claude/projects/${rel}`;
        content = `<persisted-output>\nOutput too large (${(output.length / 1024).toFixed(1)}KB). Full output saved to: ${shown}\n\nPreview (first 2KB):\n${output.slice(0, 2048)}\n...\n</persisted-output>`;
        toolUseResult = {
          stdout: output.slice(0, 2048),
          stderr: "",
          interrupted: false,
          isImage: false,
          noOutputExpected: false,
        };
      } else if (name === "Bash") {
        content = output;
        toolUseResult = {
          stdout: output,
          stderr: "",
          interrupted: false,
          isImage: false,
          noOutputExpected: false,
        };
      } else {
        content = output;
        toolUseResult = {
          mode: "content",
          numFiles: rng.range(1, 9),
          filenames: [],
          content: output,
          numLines: output.split("\n").length,
        };
      }
    } else if (name === "Read") {
      const body = insertLine(
        rng,
        ctx.text.codeBody(rng, this.sizer.next()),
        `// ${ctx.canaries.take("TOOL")}`,
      );
      const lines = body.split("\n");
      content = lines.map((l, i) => `${String(i + 1).padStart(6, " ")}→${l}`).join("\n");
      toolUseResult = {
        type: "text",
        file: {
          filePath: input.file_path,
          content: body,
          numLines: lines.length,
          startLine: 1,
          totalLines: lines.length,
        },
      };
    } else if (name === "Edit") {
      content = `The file ${input.file_path} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${ctx.text.codeBody(rng, 200)}\n${ctx.canaries.take("TOOL")}`;
      toolUseResult = {
        filePath: input.file_path,
        oldString: input.old_string,
        newString: input.new_string,
        structuredPatch: [],
        userModified: false,
      };
    } else if (name === "Write") {
      content = `File created successfully at: ${input.file_path}`;
      toolUseResult = {
        type: "create",
        filePath: input.file_path,
        content: input.content,
        structuredPatch: [],
      };
    } else {
      // Task: run the subagent in its own sidechain file, then report its final text.
      const agentId = `a${rng.hex(8)}`;
      const report = this.subagent(agentId, input.prompt as string);
      content = [{ type: "text", text: `${report}\n\nagentId: ${agentId} ${ctx.canaries.take("TOOL")}` }];
      toolUseResult = {
        status: "completed",
        prompt: input.prompt,
        agentId,
        content: [{ type: "text", text: report }],
        totalDurationMs: rng.range(5_000, 300_000),
        totalTokens: rng.range(1_000, 80_000),
        totalToolUseCount: rng.range(1, 12),
      };
    }
    const uuid = rng.uuid4();
    const line: Line = {
      ...this.envelope(this.parent, sidechain),
      type: "user",
      message: {
        role: "user",
        content: [{ tool_use_id: id, type: "tool_result", content, is_error: isError }],
      },
      uuid,
      timestamp: iso(this.tick(50, 30_000)),
      toolUseResult,
    };
    if (this.era.modern) line.sourceToolAssistantUUID = assistantUuid;
    this.emit(line, out);
    this.parent = uuid;
    this.countMessage();
  }

  /** A Task subagent transcript in the layout of this session's era. */
  private subagent(agentId: string, prompt: string): string {
    const { rng } = this;
    const dir = path.join(this.projectsDir, this.slug);
    const file = this.era.modern
      ? path.join(dir, this.sessionId, "subagents", `agent-${agentId}.jsonl`)
      : path.join(dir, `agent-${agentId}.jsonl`);
    const out = new BufferedFileWriter(file);
    this.files++;
    if (this.era.modern) {
      writeWholeFile(
        path.join(dir, this.sessionId, "subagents", `agent-${agentId}.meta.json`),
        JSON.stringify({
          agentType: "general-purpose",
          spawnDepth: 1,
          description: this.ctx.text.title(rng),
        }),
      );
      this.files++;
    }
    const savedParent = this.parent;
    const side = { agentId, out };
    const uuid = rng.uuid4();
    this.emit(
      {
        ...this.envelope(null, side),
        type: "user",
        message: { role: "user", content: prompt },
        uuid,
        timestamp: iso(this.tick(100, 2_000)),
      },
      out,
    );
    this.parent = uuid;
    this.countMessage();
    const steps = rng.range(1, 2);
    for (let i = 0; i < steps; i++) this.assistantStep(true, side);
    const report = this.assistantStep(false, side);
    out.close(this.clock);
    this.parent = savedParent;
    return report;
  }

  private compaction(): void {
    const { rng, ctx } = this;
    const boundary = rng.uuid4();
    this.emit({
      ...this.envelope(null, null),
      logicalParentUuid: this.parent,
      type: "system",
      subtype: "compact_boundary",
      content: "Conversation compacted",
      isMeta: false,
      timestamp: iso(this.tick(1_000, 30_000)),
      uuid: boundary,
      level: "info",
      compactMetadata: {
        trigger: rng.chance(0.7) ? "auto" : "manual",
        preTokens: rng.range(120_000, 190_000),
      },
    });
    const uuid = rng.uuid4();
    this.emit({
      ...this.envelope(boundary, null),
      type: "user",
      message: {
        role: "user",
        content: `This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n${ctx.text.summary(rng)}\nPlease continue the conversation from where we left it off without asking the user any further questions.`,
      },
      isVisibleInTranscriptOnly: true,
      isCompactSummary: true,
      uuid,
      timestamp: iso(this.tick(5_000, 60_000)),
    });
    this.parent = uuid;
    this.countMessage();
  }
}

/** Writes every Claude Code session of the plan under `configDir`. */
export function generateClaude(ctx: SourceContext, configDir: string): SourceResult {
  const { rng } = ctx;
  const plans = planSessions(rng.fork("plan"), { ...ctx.spec, baseTime: ctx.baseTime, minPerSession: 2 });
  const cov = new Coverage([
    "image",
    "compaction",
    "bash-error",
    "task-flat",
    "task-modern",
    "tool-results-file",
  ]);
  const sizer = new PayloadSizer(rng.fork("sizes"), 3);
  const projectsDir = path.join(configDir, "projects");
  let messages = 0;
  let files = 0;
  const used = new Set<string>();
  for (const plan of plans) {
    const session = new ClaudeSession(
      ctx,
      rng.fork(`session-${plan.index}`),
      cov,
      sizer,
      projectsDir,
      plan,
      messages,
    );
    session.run();
    messages += session.count;
    files += session.files;
    used.add(ctx.projects[plan.project] as string);
  }
  return { counts: { sessions: plans.length, messages, files }, projectsUsed: [...used] };
}
