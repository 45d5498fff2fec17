import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { decompress } from "fzstd";
import { KEEP_BODY_TAGS, METADATA_ATTRIBUTES } from "../projection/dyad-tag-policy.js";

/**
 * Reading a generated demo corpus back, for tests and benchmarks: list its files, read JSONL (also
 * `.jsonl.zst`), dump SQLite databases row by row (a WAL database's bytes differ run to run, its rows
 * do not), and extract the *prose* of each source — the text a correct projection may index. Canary
 * markers must never appear in that prose; needles must.
 *
 * The prose rules here are deliberately simple and conservative (they keep more than a real
 * projection would, e.g. tool inputs and injected context), so "no canary in prose" is a strong check.
 */

export function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const abs = path.join(dir, name);
      const r = rel === "" ? name : `${rel}/${name}`;
      if (statSync(abs).isDirectory()) walk(abs, r);
      else out.push(r);
    }
  };
  walk(root, "");
  return out;
}

export function isSqliteFile(rel: string): boolean {
  return /\.db(-wal|-shm)?$/.test(rel);
}

/** File text; `.zst` files are decompressed. */
export function readCorpusText(file: string): string {
  const raw = readFileSync(file);
  return file.endsWith(".zst") ? Buffer.from(decompress(raw)).toString("utf8") : raw.toString("utf8");
}

export function readJsonl(file: string): Record<string, unknown>[] {
  return readCorpusText(file)
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Every table's rows as sorted JSON lines, prefixed by the schema; identical content ⇒ identical dump. */
export function dumpSqlite(file: string): string {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = db
      .prepare(
        "SELECT name, sql FROM sqlite_master WHERE type IN ('table','index') AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all() as { name: string; sql: string | null }[];
    const parts: string[] = [];
    for (const t of tables) {
      parts.push(`-- ${t.name}\n${t.sql ?? ""}`);
      if (t.sql === null || !t.sql.startsWith("CREATE TABLE")) continue;
      const rows = db
        .prepare(`SELECT * FROM "${t.name}"`)
        .all()
        .map((r) => JSON.stringify(r));
      rows.sort();
      parts.push(...rows);
    }
    return parts.join("\n");
  } finally {
    db.close();
  }
}

export interface ProseItem {
  where: string;
  text: string;
}

type J = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === "string" ? v : "");
const arr = (v: unknown): J[] => (Array.isArray(v) ? (v as J[]) : []);

/** Prose of one Claude Code JSONL record. */
export function claudeProse(rec: J): string[] {
  const out: string[] = [];
  const type = rec.type;
  if (type === "user" || type === "assistant") {
    const content = (rec.message as J | undefined)?.content;
    if (typeof content === "string") out.push(content);
    for (const b of arr(content)) {
      if (b.type === "text") out.push(str(b.text));
      if (b.type === "tool_use") {
        const { content: _body, old_string: _o, new_string: _n, ...rest } = (b.input ?? {}) as J;
        out.push(`${str(b.name)} ${JSON.stringify(rest)}`);
      }
    }
  } else if (type === "attachment") {
    for (const r of arr(rec.rendered)) out.push(str(r.content));
  } else if (type === "system") out.push(str(rec.content));
  else if (type === "summary") out.push(str(rec.summary));
  else if (type === "ai-title") out.push(str(rec.aiTitle));
  else if (type === "custom-title") out.push(str(rec.customTitle));
  else if (type === "last-prompt") out.push(str(rec.lastPrompt));
  return out.filter((t) => t.length > 0);
}

/** Prose of one Codex rollout line. */
export function codexProse(rec: J): string[] {
  const out: string[] = [];
  const p = (rec.payload ?? {}) as J;
  if (rec.type === "session_meta") out.push(str((p.base_instructions as J | undefined)?.text));
  else if (rec.type === "compacted") out.push(str(p.message));
  else if (rec.type === "response_item") {
    if (p.type === "message") for (const c of arr(p.content)) out.push(str(c.text));
    if (p.type === "function_call") out.push(`${str(p.name)} ${str(p.arguments)}`);
    if (p.type === "custom_tool_call") out.push(str(p.name));
  } else if (rec.type === "event_msg") {
    if (p.type === "user_message" || p.type === "agent_message") out.push(str(p.message));
    if (p.type === "task_complete") out.push(str(p.last_agent_message));
    if (p.type === "thread_name_updated") out.push(str(p.thread_name));
    if (p.type === "collab_agent_spawn_end") out.push(str(p.prompt));
    if (p.type === "item_completed") {
      const item = (p.item ?? {}) as J;
      if (item.type === "UserMessage" || item.type === "AgentMessage")
        for (const c of arr(item.content)) out.push(str(c.text));
    }
  }
  return out.filter((t) => t.length > 0);
}

/** Prose of one opencode v1 part (`data` with or without ids). */
export function opencodeV1PartProse(part: J): string[] {
  if (part.type === "text") return [str(part.text)];
  if (part.type === "tool") {
    const st = (part.state ?? {}) as J;
    const { content: _c, oldString: _o, newString: _n, ...input } = (st.input ?? {}) as J;
    return [`${str(part.tool)} ${JSON.stringify(input)} ${str(st.title)} ${str(st.error)}`];
  }
  return [];
}

/** Prose of one opencode v2 session_message row. */
export function opencodeV2Prose(type: string, data: J): string[] {
  if (type === "user" || type === "synthetic" || type === "system") return [str(data.text)];
  if (type === "shell") return [str(data.command)];
  if (type === "compaction") return [str(data.summary)];
  if (type !== "assistant") return [];
  const out: string[] = [];
  for (const c of arr(data.content)) {
    if (c.type === "text") out.push(str(c.text));
    if (c.type === "tool") {
      const st = (c.state ?? {}) as J;
      const {
        content: _c,
        oldString: _o,
        newString: _n,
        ...input
      } = (typeof st.input === "object" && st.input !== null ? st.input : {}) as J;
      out.push(
        `${str(c.name)} ${typeof st.input === "string" ? st.input : JSON.stringify(input)} ${str((st.error as J | undefined)?.message)}`,
      );
    }
  }
  return out;
}

/** The projection's own policy tables: the audit keeps exactly what the search projection keeps. */
const DYAD_PRESERVE = new Set(KEEP_BODY_TAGS.keys());
const DYAD_ATTRS = new Set(METADATA_ATTRIBUTES);
const KNOWN_PAYLOAD_TAGS = new Set([
  "dyad-write",
  "dyad-search-replace",
  "dyad-execute-sql",
  "dyad-grep",
  "dyad-add-dependency",
  "dyad-read",
  "dyad-rename",
  "dyad-delete",
  "dyad-edit",
]);

/** A simplified Dyad assistant projection: drop think and unknown tags, keep preserved bodies, else allowlisted attributes. */
export function dyadAssistantProse(content: string): string {
  return content.replace(
    /<(think|dyad-[\w-]+)((?:\s+[\w-]+="[^"]*")*)\s*>([\s\S]*?)<\/\1>/g,
    (_m, tag: string, attrs: string, body: string) => {
      if (tag === "think") return " ";
      if (DYAD_PRESERVE.has(tag)) return ` ${body} `;
      if (!KNOWN_PAYLOAD_TAGS.has(tag)) return " ";
      const kept: string[] = [];
      for (const a of attrs.matchAll(/([\w-]+)="([^"]*)"/g))
        if (DYAD_ATTRS.has(a[1] as string)) kept.push(a[2] as string);
      return ` [${tag.replace("dyad-", "")}: ${kept.join(" ")}] `;
    },
  );
}

/** All prose of a corpus (every source), with where it came from. */
export function* corpusProse(root: string): Generator<ProseItem> {
  for (const rel of listFiles(root)) {
    const abs = path.join(root, rel);
    if (rel.startsWith(".claude/") && rel.endsWith(".jsonl")) {
      for (const rec of readJsonl(abs)) for (const text of claudeProse(rec)) yield { where: rel, text };
    } else if (rel.startsWith(".codex/") && /\.jsonl(\.zst)?$/.test(rel)) {
      for (const rec of readJsonl(abs)) for (const text of codexProse(rec)) yield { where: rel, text };
    } else if (rel.includes("/opencode/storage/") && rel.endsWith(".json")) {
      const j = JSON.parse(readFileSync(abs, "utf8")) as J;
      if (rel.includes("/storage/part/"))
        for (const text of opencodeV1PartProse(j)) yield { where: rel, text };
      else if (rel.includes("/storage/session/")) yield { where: rel, text: str(j.title) };
    } else if (/opencode[^/]*\.db$/.test(rel)) {
      const db = new Database(abs, { readonly: true });
      try {
        const tables = new Set(
          (db.prepare("SELECT name FROM sqlite_master WHERE type='table'").all() as { name: string }[]).map(
            (t) => t.name,
          ),
        );
        for (const s of db.prepare("SELECT title FROM session").all() as { title: string }[])
          yield { where: `${rel}#session`, text: s.title };
        for (const r of db.prepare("SELECT id, data FROM part").iterate() as Iterable<{
          id: string;
          data: string;
        }>)
          for (const text of opencodeV1PartProse(JSON.parse(r.data) as J))
            yield { where: `${rel}#part/${r.id}`, text };
        if (tables.has("session_v2")) {
          for (const s of db.prepare("SELECT title FROM session_v2 WHERE title IS NOT NULL").all() as {
            title: string;
          }[])
            yield { where: `${rel}#session_v2`, text: s.title };
          for (const r of db.prepare("SELECT id, type, data FROM session_message").iterate() as Iterable<{
            id: string;
            type: string;
            data: string;
          }>)
            for (const text of opencodeV2Prose(r.type, JSON.parse(r.data) as J))
              yield { where: `${rel}#session_message/${r.id}`, text };
        }
      } finally {
        db.close();
      }
    } else if (rel.endsWith(".config/dyad/sqlite.db")) {
      const db = new Database(abs, { readonly: true });
      try {
        for (const a of db.prepare("SELECT name FROM apps").all() as { name: string }[])
          yield { where: `${rel}#apps`, text: a.name };
        for (const c of db.prepare("SELECT title FROM chats WHERE title IS NOT NULL").all() as {
          title: string;
        }[])
          yield { where: `${rel}#chats`, text: c.title };
        for (const m of db.prepare("SELECT id, role, content FROM messages").iterate() as Iterable<{
          id: number;
          role: string;
          content: string;
        }>)
          yield {
            where: `${rel}#messages/${m.id}`,
            text: m.role === "user" ? m.content : dyadAssistantProse(m.content),
          };
      } finally {
        db.close();
      }
    }
  }
}
