import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REAL_FIXTURES, SHARED_DIR, sharedAvailable } from "../../test/helpers/shared.js";
import { CANARY_PATTERN } from "./canaries.js";
import {
  claudeProse,
  codexProse,
  corpusProse,
  dumpSqlite,
  dyadAssistantProse,
  listFiles,
  opencodeV1PartProse,
  opencodeV2Prose,
  readCorpusText,
  readJsonl,
} from "./corpus-audit.js";
import { DYAD_COLUMNS } from "./dyad-schema.js";
import { generateDemoCorpus } from "./generate.js";
import type { DemoManifest, Needle } from "./manifest.js";
import { DEFAULT_BASE_TIME, YEAR_MS, claudeSlug } from "./plan.js";

type J = Record<string, unknown>;

/** Override with DEMO_SEED / DEMO_MSGS to sweep seeds and sizes by hand. */
const SEED = Number(process.env.DEMO_SEED ?? 3);
const MESSAGES = Number(process.env.DEMO_MSGS ?? 1200);

let root: string;
let manifest: DemoManifest;
let files: string[];

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), "recall-demo-shape-"));
  manifest = await generateDemoCorpus({ root, seed: SEED, messages: MESSAGES });
  files = listFiles(root);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const abs = (rel: string): string => path.join(root, rel);
const claudeFiles = (): string[] =>
  files.filter((f) => f.startsWith(".claude/projects/") && f.endsWith(".jsonl"));
const codexFiles = (): string[] => files.filter((f) => f.startsWith(".codex/") && /\.jsonl(\.zst)?$/.test(f));
function withDb<T>(rel: string, fn: (db: Database.Database) => T): T {
  const db = new Database(abs(rel), { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}
const tableNames = (db: Database.Database): string[] =>
  (
    db.prepare("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name").all() as { name: string }[]
  ).map((r) => r.name);

describe("manifest", () => {
  it("reports counts, paths, projects and is written to <root>/demo-manifest.json", () => {
    const onDisk = JSON.parse(readFileSync(abs("demo-manifest.json"), "utf8")) as DemoManifest;
    expect(onDisk).toEqual(manifest);
    for (const src of ["claude", "codex", "opencode", "dyad"] as const) {
      expect(manifest.counts[src].sessions, src).toBeGreaterThan(2);
      expect(manifest.counts[src].messages, src).toBeGreaterThan(MESSAGES / 12);
      expect(manifest.counts[src].files, src).toBeGreaterThan(0);
    }
    const total = Object.values(manifest.counts).reduce((a, c) => a + c.messages, 0);
    expect(total).toBeGreaterThan(MESSAGES * 0.85);
    expect(total).toBeLessThan(MESSAGES * 1.25);
    expect(manifest.paths.claudeConfigDir).toBe(path.join(root, ".claude"));
    expect(existsSync(manifest.paths.dyadDb)).toBe(true);
    expect(manifest.projects.length).toBeGreaterThanOrEqual(3);
    for (const p of manifest.projects) expect(path.isAbsolute(p)).toBe(true);
  });
});

describe("text", () => {
  it("mixes in multilingual prose and carries large payloads in every source", () => {
    const prose = [...corpusProse(root)].map((p) => p.text).join("\n");
    expect(prose).toMatch(/[äöüß]/);
    expect(prose).toMatch(/[éèàç]/);
    expect(prose).toMatch(/[а-яё]/);
    expect(prose).toMatch(/[\u3040-\u30ff]/); // Japanese kana
    expect(prose).toMatch(/[\u4e00-\u9fff]/); // CJK ideographs
    expect(prose).toMatch(/\p{Extended_Pictographic}/u);
    expect(prose).toMatch(/ERR_[A-Z_]+|E\d{4}/);
    expect(prose).toMatch(/src\/[\w/]+\.\w+/);
    const big = (s: string): boolean => s.length > 20_000;
    expect(
      claudeFiles().some((f) =>
        readJsonl(abs(f)).some((r) => r.type === "user" && big(JSON.stringify((r.message as J).content))),
      ),
    ).toBe(true);
    expect(
      codexFiles().some((f) =>
        readJsonl(abs(f)).some((r) => r.type === "response_item" && big(JSON.stringify(r.payload))),
      ),
    ).toBe(true);
    const ocBig = ["opencode.db", "opencode-dev.db"].map((f) =>
      withDb(
        `.local/share/opencode/${f}`,
        (db) =>
          (
            db
              .prepare(
                "SELECT count(*) n FROM (SELECT data FROM part UNION ALL SELECT data FROM session_message) WHERE length(data) > 20000",
              )
              .get() as { n: number }
          ).n,
      ),
    );
    expect((ocBig[0] as number) + (ocBig[1] as number)).toBeGreaterThan(0);
    withDb(".config/dyad/sqlite.db", (db) => {
      expect(
        (db.prepare("SELECT count(*) n FROM messages WHERE length(content) > 20000").get() as { n: number })
          .n,
      ).toBeGreaterThan(0);
    });
  });

  it("follows a Zipf-like distribution: a few words in most messages, many rare ones", () => {
    const docs = withDb(".config/dyad/sqlite.db", (db) =>
      (db.prepare("SELECT content FROM messages WHERE role = 'user'").all() as { content: string }[]).map(
        (r) => r.content.toLowerCase(),
      ),
    );
    const df = new Map<string, number>();
    for (const d of docs) for (const w of new Set(d.match(/[a-z]+/g) ?? [])) df.set(w, (df.get(w) ?? 0) + 1);
    const sorted = [...df.values()].sort((a, b) => b - a);
    expect((sorted[0] as number) / docs.length).toBeGreaterThan(0.5);
    expect(sorted.filter((c) => c === 1).length).toBeGreaterThan(sorted.length / 4);
  });
});

describe("every file parses", () => {
  it("every JSONL line (also inside .jsonl.zst) and every JSON file is valid JSON", () => {
    let lines = 0;
    for (const rel of files) {
      if (/\.jsonl(\.zst)?$/.test(rel)) {
        const text = readCorpusText(abs(rel));
        expect(text.endsWith("\n"), rel).toBe(true);
        for (const l of text.split("\n").filter((x) => x.length > 0)) {
          JSON.parse(l);
          lines++;
        }
      } else if (rel.endsWith(".json")) JSON.parse(readFileSync(abs(rel), "utf8"));
    }
    expect(lines).toBeGreaterThan(MESSAGES / 2);
  });
});

describe("Claude Code", () => {
  it("puts sessions under projects/<slug(cwd)>/<uuid>.jsonl with the envelope on every conversation line", () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    let checked = 0;
    for (const rel of claudeFiles()) {
      const parts = rel.split("/");
      const slug = parts[2] as string;
      for (const rec of readJsonl(abs(rel))) {
        if (!["user", "assistant", "system", "attachment"].includes(rec.type as string)) {
          expect(rec.sessionId ?? rec.type, rel).toBeTruthy();
          continue;
        }
        for (const k of ["uuid", "sessionId", "cwd", "gitBranch", "version", "timestamp"])
          expect(rec[k], `${rel} ${k}`).toBeTypeOf("string");
        expect("parentUuid" in rec).toBe(true);
        expect(rec.uuid).toMatch(uuid);
        expect(new Date(rec.timestamp as string).toISOString()).toBe(rec.timestamp);
        expect(claudeSlug(rec.cwd as string)).toBe(slug);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(MESSAGES / 5);
    expect(
      files.some((f) => f.startsWith(".claude/projects/") && /[^/]*-home-demo-code-caf--menu\//.test(f)),
    ).toBe(true);
  });

  it("splits an API response into one line per block sharing message.id and requestId", () => {
    const groups = new Map<string, J[]>();
    for (const rel of claudeFiles())
      for (const rec of readJsonl(abs(rel)))
        if (rec.type === "assistant") {
          const key = `${(rec.message as J).id as string}|${rec.requestId as string}`;
          groups.set(key, [...(groups.get(key) ?? []), rec]);
        }
    const multi = [...groups.values()].filter((g) => g.length > 1);
    expect(multi.length).toBeGreaterThan(10);
    for (const g of multi) for (const rec of g) expect(((rec.message as J).content as J[]).length).toBe(1);
  });

  it("covers thinking, tool_use/tool_result (some is_error), images, compaction, titles, attachments", () => {
    const seen = new Set<string>();
    let compactNext = false;
    for (const rel of claudeFiles()) {
      for (const rec of readJsonl(abs(rel))) {
        if (compactNext) {
          expect(rec.isCompactSummary).toBe(true);
          expect(((rec.message as J).content as string).startsWith("This session is being continued")).toBe(
            true,
          );
          seen.add("compact-summary");
          compactNext = false;
        }
        if (rec.type === "system" && rec.subtype === "compact_boundary") {
          expect(rec.parentUuid).toBeNull();
          expect(rec.logicalParentUuid).toBeTypeOf("string");
          seen.add("compact_boundary");
          compactNext = true;
        }
        if (rec.type === "attachment" && JSON.stringify(rec.rendered).includes("<system-reminder>"))
          seen.add("attachment");
        if (["ai-title", "summary", "last-prompt"].includes(rec.type as string)) seen.add(rec.type as string);
        const content = (rec.message as J | undefined)?.content;
        for (const b of Array.isArray(content) ? (content as J[]) : []) {
          seen.add(b.type as string);
          if (b.type === "thinking") expect(b.thinking as string).toMatch(CANARY_PATTERN);
          if (b.type === "image") {
            expect((b.source as J).type).toBe("base64");
            expect((b.source as J).data as string).toMatch(/^[A-Za-z0-9+/]+=*$/);
          }
          if (b.type === "tool_result" && b.is_error === true) {
            seen.add("is_error");
            expect(String(b.content).split("\n")[0]).toMatch(/^Exit code \d+$/);
          }
          if (b.type === "tool_result" && String(JSON.stringify(b.content)).includes("<persisted-output>"))
            seen.add("persisted-output");
        }
      }
    }
    for (const k of [
      "thinking",
      "text",
      "tool_use",
      "tool_result",
      "is_error",
      "image",
      "compact_boundary",
      "compact-summary",
      "attachment",
      "ai-title",
      "last-prompt",
      "persisted-output",
    ])
      expect(seen.has(k), k).toBe(true);
  });

  it("writes subagents in both layouts and tool-results side files", () => {
    const modern = files.filter((f) =>
      /^\.claude\/projects\/[^/]+\/[0-9a-f-]{36}\/subagents\/agent-a[0-9a-f]{16}\.jsonl$/.test(f),
    );
    const flat = files.filter((f) => /^\.claude\/projects\/[^/]+\/agent-a[0-9a-f]{16}\.jsonl$/.test(f));
    const metas = files.filter((f) => /\/subagents\/agent-a[0-9a-f]{16}\.meta\.json$/.test(f));
    const results = files.filter((f) =>
      /^\.claude\/projects\/[^/]+\/[0-9a-f-]{36}\/tool-results\/toolu_[A-Za-z0-9]+\.txt$/.test(f),
    );
    expect(modern.length).toBeGreaterThan(0);
    expect(flat.length).toBeGreaterThan(0);
    expect(metas.length).toBe(modern.length);
    expect(results.length).toBeGreaterThan(0);
    for (const rel of [...modern, ...flat]) {
      const parentSession = modern.includes(rel) ? (rel.split("/")[3] as string) : null;
      for (const rec of readJsonl(abs(rel))) {
        expect(rec.isSidechain).toBe(true);
        expect(rec.agentId).toBeTypeOf("string");
        if (parentSession !== null) expect(rec.sessionId).toBe(parentSession);
      }
    }
    expect(JSON.parse(readFileSync(abs(metas[0] as string), "utf8"))).toMatchObject({
      agentType: "general-purpose",
      spawnDepth: 1,
    });
    expect(readFileSync(abs(results[0] as string), "utf8").length).toBeGreaterThan(30_000);
  });
});

describe("Codex", () => {
  const idFromName = (rel: string): string =>
    (
      /rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-([0-9a-f-]{36})\.jsonl/.exec(rel) as RegExpExecArray
    )[1] as string;

  it("names rollouts by local time and starts each with session_meta whose id matches the file name", () => {
    for (const rel of codexFiles()) {
      expect(rel).toMatch(
        /^\.codex\/(sessions\/\d{4}\/\d{2}\/\d{2}|archived_sessions)\/rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl(\.zst)?$/,
      );
      const lines = readJsonl(abs(rel));
      const first = lines[0] as J;
      expect(first.type).toBe("session_meta");
      expect((first.payload as J).id).toBe(idFromName(rel));
      // File name time is local (UTC−3), the record is UTC.
      const stamp = /rollout-(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})/.exec(rel) as RegExpExecArray;
      const local = Date.UTC(+stamp[1]!, +stamp[2]! - 1, +stamp[3]!, +stamp[4]!, +stamp[5]!, +stamp[6]!);
      expect(Math.abs(Date.parse(first.timestamp as string) - 3 * 3600_000 - local)).toBeLessThan(1000);
      for (const [i, l] of lines.entries()) if ("ordinal" in l) expect(l.ordinal).toBe(i);
    }
  });

  it("has archived, compressed and one twin (.jsonl + .jsonl.zst with identical content)", () => {
    const rolls = codexFiles();
    expect(rolls.some((f) => f.startsWith(".codex/archived_sessions/"))).toBe(true);
    const zst = rolls.filter((f) => f.endsWith(".zst"));
    expect(zst.length).toBeGreaterThan(1);
    const twins = zst.filter((f) => rolls.includes(f.slice(0, -4)));
    expect(twins.length).toBe(1);
    const twin = twins[0] as string;
    expect(readCorpusText(abs(twin))).toBe(readFileSync(abs(twin.slice(0, -4)), "utf8"));
    expect(readFileSync(abs(twin)).readUInt32LE(0)).toBe(0xfd2fb528);
  });

  it("covers both event shapes, reasoning, function calls, apply_patch, compaction and a subagent replay", () => {
    const seen = new Set<string>();
    const ids = new Set(codexFiles().map(idFromName));
    for (const rel of codexFiles()) {
      const lines = readJsonl(abs(rel));
      const metas = lines.filter((l) => l.type === "session_meta").map((l) => l.payload as J);
      if (metas.length > 1) {
        const child = metas[0] as J;
        const parent = metas[1] as J;
        expect((((child.source as J).subagent as J).thread_spawn as J).parent_thread_id).toBe(parent.id);
        expect(ids.has(parent.id as string)).toBe(true);
        seen.add("subagent");
      }
      for (const l of lines) {
        const p = l.payload as J;
        if (l.type === "turn_context") expect(p.model).toBeTypeOf("string");
        if (l.type === "compacted") {
          expect(Array.isArray(p.replacement_history)).toBe(true);
          expect(p.message).toBeTypeOf("string");
          seen.add("compacted");
        }
        if (l.type === "event_msg")
          seen.add(
            p.type === "item_completed"
              ? `item:${(p.item as J).type as string}`
              : `event:${p.type as string}`,
          );
        if (l.type !== "response_item") continue;
        seen.add(`ri:${p.type as string}`);
        if (p.type === "reasoning") {
          expect(JSON.stringify(p.summary)).toMatch(CANARY_PATTERN);
          expect(p.encrypted_content as string).toMatch(CANARY_PATTERN);
        }
        if (p.type === "function_call") JSON.parse(p.arguments as string);
        if (p.type === "function_call_output") {
          expect(p.output as string).toMatch(
            /Process exited with code \d+\nOriginal token count: \d+\nOutput:\n/,
          );
          if ((p.output as string).includes("exited with code 0"))
            expect(p.output as string).toMatch(CANARY_PATTERN);
        }
        if (p.type === "custom_tool_call") {
          expect(p.name).toBe("apply_patch");
          expect(p.input as string).toMatch(/^\*\*\* Begin Patch\n/);
        }
        if (
          p.type === "message" &&
          p.role === "user" &&
          JSON.stringify(p.content).includes("<environment_context>")
        )
          seen.add("environment_context");
      }
    }
    for (const k of [
      "subagent",
      "compacted",
      "environment_context",
      "event:user_message",
      "event:agent_message",
      "event:agent_reasoning",
      "item:UserMessage",
      "item:AgentMessage",
      "item:Reasoning",
      "item:CommandExecution",
      "event:collab_agent_spawn_end",
      "ri:message",
      "ri:reasoning",
      "ri:function_call",
      "ri:function_call_output",
      "ri:custom_tool_call",
      "ri:custom_tool_call_output",
    ])
      expect(seen.has(k), k).toBe(true);
  });
});

describe("opencode", () => {
  const oc = ".local/share/opencode";

  it("opencode.db is an upgraded 2.x database in WAL mode with migrated v1 sessions under the same ids", () => {
    withDb(`${oc}/opencode.db`, (db) => {
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(tableNames(db)).toEqual(
        expect.arrayContaining(["session", "message", "part", "session_v2", "session_message", "project"]),
      );
      const v1 = (db.prepare("SELECT id FROM session").all() as { id: string }[]).map((r) => r.id);
      const v2 = new Set(
        (db.prepare("SELECT id FROM session_v2").all() as { id: string }[]).map((r) => r.id),
      );
      expect(v1.length).toBeGreaterThan(0);
      for (const id of v1) expect(v2.has(id)).toBe(true);
      expect(v2.size).toBeGreaterThan(v1.length); // v2-only sessions too
      const missing = db
        .prepare(
          "SELECT count(*) AS n FROM message m WHERE NOT EXISTS (SELECT 1 FROM session_message s WHERE s.id = m.id)",
        )
        .get() as { n: number };
      expect(missing.n).toBe(0);
      const types = new Set(
        (db.prepare("SELECT DISTINCT type FROM session_message").all() as { type: string }[]).map(
          (r) => r.type,
        ),
      );
      for (const t of [
        "user",
        "assistant",
        "synthetic",
        "system",
        "agent-switched",
        "shell",
        "compaction",
        "idle",
      ])
        expect(types.has(t), t).toBe(true);
      expect(
        (
          db
            .prepare(
              "SELECT count(*) AS n FROM session_v2 WHERE parent_id IS NOT NULL AND version = '2.0.26'",
            )
            .get() as { n: number }
        ).n,
      ).toBeGreaterThan(0);
      expect(
        (db.prepare("SELECT count(*) AS n FROM session_v2 WHERE title IS NULL").get() as { n: number }).n,
      ).toBeGreaterThan(0);
      const seqDup = db
        .prepare("SELECT session_id, seq, count(*) c FROM session_message GROUP BY 1, 2 HAVING c > 1")
        .all();
      expect(seqDup).toEqual([]);
    });
  });

  it("opencode-dev.db is a pure 1.x database in WAL mode", () => {
    withDb(`${oc}/opencode-dev.db`, (db) => {
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      const t = tableNames(db);
      expect(t).toEqual(expect.arrayContaining(["session", "message", "part", "session_message", "project"]));
      expect(t).not.toContain("session_v2");
      expect((db.prepare("SELECT count(*) AS n FROM session_message").get() as { n: number }).n).toBe(0);
      expect((db.prepare("SELECT count(*) AS n FROM message").get() as { n: number }).n).toBeGreaterThan(0);
    });
  });

  it("v1 parts cover text, reasoning, tool (output canary), step-start/finish, file data: URL, compaction and a child session", () => {
    const parts: J[] = [];
    const summaries: J[] = [];
    let children = 0;
    for (const rel of [`${oc}/opencode.db`, `${oc}/opencode-dev.db`]) {
      withDb(rel, (db) => {
        for (const r of db.prepare("SELECT data FROM part").all() as { data: string }[])
          parts.push(JSON.parse(r.data) as J);
        for (const r of db.prepare("SELECT data FROM message").all() as { data: string }[]) {
          const d = JSON.parse(r.data) as J;
          if (d.summary === true) summaries.push(d);
        }
        children += (
          db.prepare("SELECT count(*) AS n FROM session WHERE parent_id IS NOT NULL").get() as { n: number }
        ).n;
      });
    }
    const types = new Set(parts.map((p) => p.type));
    for (const t of ["text", "reasoning", "tool", "step-start", "step-finish", "file", "compaction"])
      expect(types.has(t), t).toBe(true);
    for (const p of parts) {
      if (p.type === "reasoning") expect(p.text as string).toMatch(CANARY_PATTERN);
      if (p.type === "file") expect(p.url as string).toMatch(/^data:image\/png;base64,/);
      if (p.type === "tool" && (p.state as J).status === "completed")
        expect((p.state as J).output as string).toMatch(CANARY_PATTERN);
    }
    expect(summaries.length).toBeGreaterThan(0);
    expect(children).toBeGreaterThan(0);
  });

  it("storage/ holds old-era JSON sessions, messages and parts", () => {
    const st = files.filter((f) => f.startsWith(`${oc}/storage/`));
    for (const kind of ["project", "session", "message", "part"])
      expect(
        st.some((f) => f.startsWith(`${oc}/storage/${kind}/`)),
        kind,
      ).toBe(true);
    const part = JSON.parse(
      readFileSync(abs(st.find((f) => f.includes("/storage/part/")) as string), "utf8"),
    ) as J;
    expect(part.id).toMatch(/^prt_[0-9a-f]{12}[0-9A-Za-z]{14}$/);
    expect(part.messageID).toMatch(/^msg_/);
    expect(part.sessionID).toMatch(/^ses_/);
  });

  it("uses the exact CREATE TABLE statements of the fixture dumps", () => {
    if (!sharedAvailable("fixtures/real/opencode")) return;
    const dump = readFileSync(
      path.join(
        REAL_FIXTURES,
        "opencode/v1-1.15.10-upgraded-to-2.0.26/home/.local/share/opencode/opencode.sql",
      ),
      "utf8",
    );
    withDb(`${oc}/opencode.db`, (db) => {
      for (const t of ["message", "part", "session", "session_v2", "session_message"]) {
        const sql = (db.prepare("SELECT sql FROM sqlite_master WHERE name = ?").get(t) as { sql: string })
          .sql;
        // sqlite_master drops "IF NOT EXISTS"; `.dump` prints it back for quoted (renamed) tables.
        expect(dump.replace(/CREATE TABLE IF NOT EXISTS /g, "CREATE TABLE ").includes(sql + ";"), t).toBe(
          true,
        );
      }
    });
  });
});

describe("Dyad", () => {
  it("has the exact column names of dyad-data-model.md §1, seconds timestamps, cascading FKs and no messages index", () => {
    withDb(".config/dyad/sqlite.db", (db) => {
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      for (const table of ["apps", "chats", "messages"] as const) {
        const cols = (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map(
          (c) => c.name,
        );
        expect(cols).toEqual([...DYAD_COLUMNS[table]]);
      }
      for (const [table, parent] of [
        ["chats", "apps"],
        ["messages", "chats"],
      ] as const) {
        const fks = db.prepare(`PRAGMA foreign_key_list(${table})`).all() as {
          table: string;
          on_delete: string;
        }[];
        expect(fks).toEqual([expect.objectContaining({ table: parent, on_delete: "CASCADE" })]);
      }
      expect(db.prepare("PRAGMA index_list(messages)").all()).toEqual([]);
      const range = db.prepare("SELECT min(created_at) lo, max(created_at) hi FROM messages").get() as {
        lo: number;
        hi: number;
      };
      expect(range.lo).toBeGreaterThan(DEFAULT_BASE_TIME / 1000 - 86400);
      expect(range.hi).toBeLessThan((DEFAULT_BASE_TIME + YEAR_MS) / 1000 + 30 * 86400);
      expect((db.prepare("SELECT count(*) n FROM apps").get() as { n: number }).n).toBeGreaterThan(1);
      expect(
        (db.prepare("SELECT count(*) n FROM chats WHERE title IS NULL").get() as { n: number }).n,
      ).toBeGreaterThan(0);
      expect(
        (db.prepare("SELECT count(*) n FROM chats WHERE title IS NOT NULL").get() as { n: number }).n,
      ).toBeGreaterThan(0);
    });
    if (!sharedAvailable("reference/dyad-data-model.md")) return;
    const doc = readFileSync(path.join(SHARED_DIR, "reference/dyad-data-model.md"), "utf8");
    for (const table of ["apps", "chats", "messages"] as const) {
      const section = doc.slice(
        doc.indexOf(`### \`${table}\``),
        doc.indexOf("###", doc.indexOf(`### \`${table}\``) + 5),
      );
      const names: string[] = [];
      for (const row of section
        .split("\n")
        .filter((l) => l.startsWith("| ") && !l.includes("post-feature") && !l.startsWith("| JS name"))) {
        const [js, sql] = row
          .split("|")
          .slice(1, 3)
          .map((c) => c.trim()) as [string, string];
        if (sql.includes("*"))
          names.push(...js.split(/,\s*/).map((n) => n.replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`)));
        else names.push(...sql.split(/\s*[/,]\s*/));
      }
      expect([...DYAD_COLUMNS[table]].sort(), table).toEqual(names.sort());
    }
  });

  it("plants dyad tags, think, compaction summaries and ai_messages_json as Dyad writes them", () => {
    withDb(".config/dyad/sqlite.db", (db) => {
      const all = db.prepare("SELECT * FROM messages ORDER BY id").all() as J[];
      const assistant = all
        .filter((m) => m.role === "assistant")
        .map((m) => m.content as string)
        .join("\n");
      for (const tag of [
        "<think>",
        "<dyad-write ",
        "<dyad-search-replace ",
        "<dyad-execute-sql ",
        "<dyad-grep ",
        "<dyad-add-dependency ",
        "<dyad-chat-summary>",
        "<dyad-write-plan ",
        '<dyad-output type="error"',
        "<dyad-future-tag ",
      ])
        expect(assistant.includes(tag), tag).toBe(true);
      expect(all.some((m) => m.role === "user" && (m.content as string).includes("<dyad-write "))).toBe(true);
      const summaries = all.filter((m) => m.is_compaction_summary === 1);
      expect(summaries.length).toBeGreaterThan(0);
      for (const s of summaries) {
        expect(s.content as string).toMatch(
          /^<dyad-compaction title="Conversation compacted" state="finished">[\s\S]+<\/dyad-compaction>\n\S/,
        );
        const trigger = all.find((m) => m.id === (s.id as number) - 1) as J;
        expect(trigger.role).toBe("user");
        expect(trigger.chat_id).toBe(s.chat_id);
        expect(s.created_at).toBe((trigger.created_at as number) - 1);
        const after = all.find((m) => m.id === (s.id as number) + 1);
        if (after !== undefined && after.chat_id === s.chat_id)
          expect(after.created_at as number).toBeGreaterThanOrEqual(trigger.created_at as number);
      }
      const chats = db.prepare("SELECT * FROM chats WHERE compacted_at IS NOT NULL").all() as J[];
      expect(chats.length).toBe(new Set(summaries.map((s) => s.chat_id)).size);
      const json = all.filter((m) => m.ai_messages_json !== null);
      expect(json.length).toBeGreaterThan(0);
      for (const m of json) {
        const parsed = JSON.parse(m.ai_messages_json as string) as J;
        expect(parsed.sdkVersion).toBe("ai@v6");
        expect(m.ai_messages_json as string).toMatch(CANARY_PATTERN);
      }
      const apps = db.prepare("SELECT path FROM apps").all() as { path: string }[];
      for (const a of apps) {
        expect(path.isAbsolute(a.path)).toBe(false);
        expect(existsSync(path.join(manifest.paths.dyadAppsDir, a.path, "package.json"))).toBe(true);
      }
    });
  });
});

/** The prose of the record a needle points at. */
function proseAt(n: Needle): string[] {
  const ref = n.ref;
  if (n.source === "claude") {
    const rec = readJsonl(abs(ref.path as string)).find((r) => r.uuid === ref.uuid);
    expect(rec, JSON.stringify(ref)).toBeDefined();
    expect(rec?.sessionId).toBe(n.session);
    return claudeProse(rec as J);
  }
  if (n.source === "codex") {
    const lines = readJsonl(abs(ref.path as string));
    expect(((lines[0] as J).payload as J).id).toBe(n.session);
    const a = codexProse(lines[ref.line as number] as J);
    const b = codexProse(lines[ref.eventLine as number] as J);
    expect(b.join("\n")).toContain(n.text);
    return a;
  }
  if (n.source === "opencode") {
    if (ref.store === "storage") {
      const part = JSON.parse(
        readFileSync(
          abs(`.local/share/opencode/storage/part/${ref.messageId as string}/${ref.partId as string}.json`),
          "utf8",
        ),
      ) as J;
      return opencodeV1PartProse(part);
    }
    return withDb(`.local/share/opencode/${ref.store as string}`, (db) => {
      if (ref.partId !== undefined) {
        const part = db
          .prepare("SELECT data, session_id FROM part WHERE id = ? AND message_id = ?")
          .get(ref.partId, ref.messageId) as { data: string; session_id: string };
        expect(part.session_id).toBe(n.session);
        return opencodeV1PartProse(JSON.parse(part.data) as J);
      }
      const row = db
        .prepare("SELECT type, data, session_id FROM session_message WHERE id = ?")
        .get(ref.messageId) as { type: string; data: string; session_id: string };
      expect(row.session_id).toBe(n.session);
      return opencodeV2Prose(row.type, JSON.parse(row.data) as J);
    });
  }
  return withDb(".config/dyad/sqlite.db", (db) => {
    const row = db
      .prepare(
        "SELECT m.role, m.content FROM messages m JOIN chats c ON c.id = m.chat_id WHERE m.id = ? AND m.chat_id = ? AND c.app_id = ?",
      )
      .get(ref.messageId, ref.chatId, ref.appId) as {
      role: string;
      content: string;
    };
    expect(row.role).toBe(n.role);
    return [row.role === "user" ? row.content : dyadAssistantProse(row.content)];
  });
}

describe("needles", () => {
  it("plants about one per 100 messages, across all sources and both roles, with unique tokens", () => {
    const n = manifest.needles;
    expect(n.length).toBeGreaterThanOrEqual(Math.max(10, Math.floor((MESSAGES / 100) * 0.9)));
    expect(new Set(n.map((x) => x.token)).size).toBe(n.length);
    expect(new Set(n.map((x) => x.source))).toEqual(new Set(["claude", "codex", "opencode", "dyad"]));
    expect(new Set(n.map((x) => x.role))).toEqual(new Set(["user", "assistant"]));
    for (const x of n) {
      expect(x.token).toMatch(/^[a-z]+\d{4}$/);
      expect(x.text).toContain(x.token);
      expect(x.text).toContain(x.query);
      expect(x.query.split(" ").length).toBeLessThanOrEqual(3);
    }
    // Some are old: in the first fifth of the corpus's year, under many newer messages.
    expect(n.filter((x) => x.at < DEFAULT_BASE_TIME + YEAR_MS / 5).length).toBeGreaterThanOrEqual(
      Math.max(2, n.length / 8),
    );
  });

  it("every needle exists verbatim in the prose at its locator", () => {
    for (const n of manifest.needles) {
      const prose = proseAt(n).join("\n");
      expect(prose, `${n.source} ${JSON.stringify(n.ref)}`).toContain(n.text);
    }
  });
});

describe("canaries", () => {
  it("lists a capped set of markers, each present somewhere in the raw corpus", () => {
    expect(manifest.canaries.length).toBeGreaterThan(50);
    expect(manifest.canaries.length).toBeLessThanOrEqual(200);
    const raw: string[] = [];
    for (const rel of files) {
      if (/\.db$/.test(rel)) raw.push(dumpSqlite(abs(rel)));
      else if (!/-(wal|shm)$/.test(rel) && rel !== "demo-manifest.json") raw.push(readCorpusText(abs(rel)));
    }
    const found = new Set(raw.join("\n").match(CANARY_PATTERN) ?? []);
    for (const c of manifest.canaries) expect(found.has(c), c).toBe(true);
    expect([...found].sort()).toEqual([...manifest.canaries].sort());
  });

  it("never appear in prose: only inside thinking, tool output, file bodies, base64 and payload tags", () => {
    let items = 0;
    for (const item of corpusProse(root)) {
      items++;
      const hit = item.text.match(CANARY_PATTERN);
      expect(hit, `${item.where}: ${hit?.[0] ?? ""}`).toBeNull();
    }
    expect(items).toBeGreaterThan(MESSAGES);
  });
});
