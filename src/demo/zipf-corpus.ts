import path from "node:path";
import type { Needle } from "./manifest.js";
import { DEFAULT_BASE_TIME, claudeSlug, iso, planSessions, projectPaths, type SessionPlan } from "./plan.js";
import { Rng } from "./rng.js";
import { MODELS_CLAUDE } from "./vocabulary.js";
import { BufferedFileWriter } from "./writer.js";
import { ZipfNeedles } from "./zipf-needles.js";
import { ZipfText } from "./zipf-text.js";
import { ZipfVocabulary } from "./zipf-vocabulary.js";

/**
 * A second corpus for the benchmark: Claude Code transcripts (`<root>/.claude/projects/<slug>/
 * <sessionId>.jsonl`, the lines claude-code.ts writes, as version 2.0 wrote them: outputs inline)
 * whose words follow a Zipf law over a 250k-type vocabulary with a long tail (zipf-vocabulary.ts),
 * as real chat text does, unlike the demo's short curated lists. Turn lengths are lognormal, tool
 * outputs long-tailed up to tens of KB, needles planted for the bench's query classes. The same
 * options give the same files; each session streams to its own file, so memory stays flat.
 *
 * Message unit: every `user` or `assistant` line, as claude-code.ts counts them.
 */

export interface ZipfCorpusOptions {
  /** The fake HOME the transcripts go under. */
  root: string;
  messages: number;
  seed?: number;
  /** Vocabulary size in word types (default 250,000) and the Zipf exponent (default 1.05). */
  types?: number;
  exponent?: number;
}

export interface ZipfManifest {
  root: string;
  seed: number;
  claudeConfigDir: string;
  messages: number;
  sessions: number;
  projects: string[];
  needles: Needle[];
  vocabulary: { types: number; exponent: number; typesUsed: number };
  /** The most frequent plain words, file paths and code symbols, most frequent first. */
  commonWords: string[];
  paths: string[];
  symbols: string[];
}

const VERSION = "2.0.76";
const BRANCHES = ["main", "main", "main", "develop", "fix/flaky-retry", "feature/search"];
/** Messages per session on average (lognormal around it; see planSessions). */
const PER_SESSION = 60;
/**
 * Tool output in characters: most outputs are a line or two, a few are pages (logs, test runs,
 * whole files) up to tens of KB (a 2.0 transcript keeps them inline): two lognormals, mixed.
 */
function outputSize(text: ZipfText, rng: Rng): number {
  return rng.chance(0.03) ? text.length(rng, 3000, 1.2, 90_000) : text.length(rng, 60, 1.2, 4000);
}

type Line = Record<string, unknown>;

interface Shared {
  text: ZipfText;
  needles: ZipfNeedles;
  projectsDir: string;
  projects: readonly string[];
}

class ZipfSession {
  private readonly out: BufferedFileWriter;
  private readonly sessionId: string;
  private readonly cwd: string;
  private readonly slug: string;
  private readonly branch: string;
  private readonly model: string;
  private clock: number;
  private parent: string | null = null;
  count = 0;

  constructor(
    private readonly s: Shared,
    private readonly rng: Rng,
    private readonly plan: SessionPlan,
    /** Messages written before this session (needles are scheduled by ordinal). */
    private readonly base: number,
  ) {
    this.sessionId = rng.uuid4();
    this.cwd = s.projects[plan.project]!;
    this.slug = claudeSlug(this.cwd);
    this.branch = rng.pick(BRANCHES);
    this.model = rng.pick(MODELS_CLAUDE);
    this.clock = plan.start;
    this.out = new BufferedFileWriter(path.join(s.projectsDir, this.slug, `${this.sessionId}.jsonl`));
  }

  run(): void {
    if (this.rng.chance(0.5))
      this.emit({ type: "summary", summary: this.s.text.title(this.rng), leafUuid: this.rng.uuid4() });
    while (this.count < this.plan.messages) this.turn(this.plan.messages - this.count);
    this.out.close(this.clock);
  }

  private emit(line: Line): void {
    this.out.write(JSON.stringify(line) + "\n");
  }

  private tick(lo: number, hi: number): number {
    this.clock += this.rng.range(lo, hi);
    return this.clock;
  }

  private envelope(): Line {
    return {
      parentUuid: this.parent,
      isSidechain: false,
      userType: "external",
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: VERSION,
      gitBranch: this.branch,
    };
  }

  /** Puts the next needle into `prose` when one is due here, and says where it went. */
  private withNeedle(prose: string, role: "user" | "assistant"): { text: string; planted: boolean } {
    const { needles, text } = this.s;
    if (!needles.due(this.base + this.count, role)) return { text: prose, planted: false };
    const { sentence } = needles.plant(text, role);
    return { text: this.rng.chance(0.5) ? `${sentence} ${prose}` : `${prose} ${sentence}`, planted: true };
  }

  private record(uuid: string, at: number): void {
    this.s.needles.record({
      session: this.sessionId,
      project: this.cwd,
      at,
      ref: { path: path.posix.join(".claude", "projects", this.slug, `${this.sessionId}.jsonl`), uuid },
    });
  }

  private turn(remaining: number): void {
    const { rng, s } = this;
    const prompt = this.withNeedle(s.text.userPrompt(rng), "user");
    const uuid = rng.uuid4();
    const at = this.tick(20_000, 900_000);
    this.emit({
      ...this.envelope(),
      type: "user",
      message: { role: "user", content: prompt.text },
      uuid,
      timestamp: iso(at),
    });
    if (prompt.planted) this.record(uuid, at);
    this.parent = uuid;
    this.count++;
    // A session's last prompt may go unanswered (the user left): the session keeps its size.
    if (remaining === 1) return;
    const steps = Math.min(
      rng.weighted([
        [0, 3],
        [1, 3],
        [2, 2],
        [3, 1],
        [5, 1],
      ] as const),
      Math.floor((remaining - 2) / 3),
    );
    for (let i = 0; i < steps; i++) this.toolStep();
    // A thinking line only where the session has room for it and the reply.
    if (this.count + 2 <= this.plan.messages && rng.chance(0.05))
      this.assistant(
        { type: "thinking", thinking: s.text.thinking(rng), signature: rng.base64(rng.range(200, 400)) },
        false,
      );
    const reply = this.withNeedle(s.text.assistantReply(rng), "assistant");
    const line = this.assistant({ type: "text", text: reply.text }, true);
    if (reply.planted) this.record(line.uuid, line.at);
  }

  /** One assistant line (one content block of a response, as Claude Code splits them). */
  private assistant(block: Line, last: boolean, stop = "end_turn"): { uuid: string; at: number } {
    const { rng } = this;
    const uuid = rng.uuid4();
    const at = this.tick(1_500, 40_000);
    this.emit({
      ...this.envelope(),
      message: {
        id: `msg_01${rng.base62(22)}`,
        type: "message",
        role: "assistant",
        model: this.model,
        content: [block],
        stop_reason: last ? stop : null,
        stop_sequence: null,
        usage: {
          input_tokens: rng.range(3, 4000),
          cache_creation_input_tokens: rng.range(0, 3000),
          cache_read_input_tokens: rng.range(0, 90_000),
          output_tokens: rng.range(1, 2000),
          service_tier: "standard",
        },
      },
      requestId: `req_011C${rng.base62(20)}`,
      type: "assistant",
      uuid,
      timestamp: iso(at),
    });
    this.parent = uuid;
    this.count++;
    return { uuid, at };
  }

  /** An assistant line with a tool call (sometimes a sentence before it), then the tool's result. */
  private toolStep(): void {
    const { rng, s } = this;
    if (rng.chance(0.35)) this.assistant({ type: "text", text: s.text.preamble(rng) }, false);
    const id = `toolu_01${rng.base62(22)}`;
    const name = rng.weighted([
      ["Bash", 5],
      ["Read", 3],
      ["Grep", 1],
      ["Edit", 2],
      ["Write", 0.5],
    ] as const);
    const file = `${this.cwd}/${s.text.path(rng)}`;
    const size = outputSize(s.text, rng);
    let input: Line;
    let content: string;
    let result: unknown;
    if (name === "Bash") {
      input = { command: s.text.command(rng), description: s.text.title(rng) };
      content = s.text.toolOutput(rng, size);
      result = { stdout: content, stderr: "", interrupted: false, isImage: false };
    } else if (name === "Grep") {
      input = { pattern: s.text.symbol(rng), path: this.cwd, output_mode: "content" };
      content = s.text.toolOutput(rng, size);
      result = {
        mode: "content",
        numFiles: rng.range(1, 9),
        filenames: [],
        content,
        numLines: content.split("\n").length,
      };
    } else if (name === "Read") {
      const body = s.text.code(rng, size);
      const lines = body.split("\n");
      input = { file_path: file };
      content = lines.map((l, i) => `${String(i + 1).padStart(6, " ")}→${l}`).join("\n");
      result = {
        type: "text",
        file: {
          filePath: file,
          content: body,
          numLines: lines.length,
          startLine: 1,
          totalLines: lines.length,
        },
      };
    } else if (name === "Edit") {
      const oldString = s.text.code(rng, s.text.length(rng, 80, 0.8, 4000));
      const newString = s.text.code(rng, s.text.length(rng, 100, 0.8, 6000));
      input = { file_path: file, old_string: oldString, new_string: newString };
      content = `The file ${file} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${s.text.code(rng, 120)}`;
      result = { filePath: file, oldString, newString, structuredPatch: [], userModified: false };
    } else {
      input = { file_path: file, content: s.text.code(rng, size) };
      content = `File created successfully at: ${file}`;
      result = { type: "create", filePath: file, content: input.content, structuredPatch: [] };
    }
    this.assistant({ type: "tool_use", id, name, input }, true, "tool_use");
    const uuid = rng.uuid4();
    this.emit({
      ...this.envelope(),
      type: "user",
      message: {
        role: "user",
        content: [{ tool_use_id: id, type: "tool_result", content, is_error: false }],
      },
      uuid,
      timestamp: iso(this.tick(50, 30_000)),
      toolUseResult: result,
    });
    this.parent = uuid;
    this.count++;
  }
}

/** Writes the corpus under `options.root` and returns what the bench needs to query it. */
export function generateZipfCorpus(options: ZipfCorpusOptions): ZipfManifest {
  const seed = (options.seed ?? 1) >>> 0;
  const rng = new Rng(seed);
  const vocabulary = new ZipfVocabulary(rng.fork("vocabulary"), {
    ...(options.types !== undefined ? { types: options.types } : {}),
    ...(options.exponent !== undefined ? { exponent: options.exponent } : {}),
  });
  const text = new ZipfText(vocabulary);
  const messages = Math.max(4, Math.floor(options.messages));
  const sessions = Math.max(1, Math.round(messages / PER_SESSION));
  const projects = projectPaths(Math.min(24, Math.max(3, Math.ceil(sessions / 8))));
  const plans = planSessions(rng.fork("plan"), {
    messages,
    sessions,
    projects: projects.length,
    baseTime: DEFAULT_BASE_TIME,
    minPerSession: 4,
  });
  const claudeConfigDir = path.join(path.resolve(options.root), ".claude");
  const shared: Shared = {
    text,
    needles: new ZipfNeedles(rng.fork("needles"), messages),
    projectsDir: path.join(claudeConfigDir, "projects"),
    projects,
  };
  let written = 0;
  const used = new Set<string>();
  for (const plan of plans) {
    const session = new ZipfSession(shared, rng.fork(`session-${plan.index}`), plan, written);
    session.run();
    written += session.count;
    used.add(projects[plan.project]!);
  }
  return {
    root: path.resolve(options.root),
    seed,
    claudeConfigDir,
    messages: written,
    sessions: plans.length,
    projects: projects.filter((p) => used.has(p)),
    needles: shared.needles.needles(),
    vocabulary: {
      types: vocabulary.words.length,
      exponent: vocabulary.sampler.exponent,
      typesUsed: text.typesUsed(),
    },
    commonWords: vocabulary.top("word", 400),
    paths: vocabulary.top("path", 60),
    symbols: vocabulary.top("symbol", 60),
  };
}
