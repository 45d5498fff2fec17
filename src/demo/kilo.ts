/**
 * Kilo Code CLI 7.x sessions for the demo corpus: `<dataDir>/kilo/kilo.db`, opencode 1.x's
 * tables (Kilo keeps that schema), each session titled with Kilo's "New session - <time>"
 * placeholder, as docs/sources/kilo.md describes.
 */
import Database from "better-sqlite3";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import type { DemoAgentSession } from "./agent-sessions.js";
import type { SourceCounts } from "./manifest.js";
import { V1_MESSAGE, V1_PART, V1_PROJECT, V1_SESSION } from "./opencode-schema.js";

export function generateKilo(sessions: readonly DemoAgentSession[], kiloDir: string): SourceCounts {
  mkdirSync(kiloDir, { recursive: true });
  const file = path.join(kiloDir, "kilo.db");
  for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(file + suffix, { force: true });
  const db = new Database(file);
  // WAL, as Kilo keeps it; closing checkpoints it and removes the -wal file.
  db.pragma("journal_mode = WAL");
  let messages = 0;
  try {
    db.exec([V1_PROJECT, V1_SESSION, V1_MESSAGE, V1_PART].join(";\n"));
    const project = db.prepare(
      "INSERT OR IGNORE INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES (?, ?, 'git', ?, ?, '[]')",
    );
    const session = db.prepare(
      `INSERT INTO session (id, project_id, slug, directory, title, version, agent, model, time_created, time_updated)
       VALUES (?, ?, ?, ?, ?, '7.7.7', 'code', '{"id":"demo-model","providerID":"demo"}', ?, ?)`,
    );
    const message = db.prepare(
      "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)",
    );
    const part = db.prepare(
      "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)",
    );
    db.transaction(() => {
      for (const s of sessions) {
        const id = `ses_demo${String(s.index).padStart(4, "0")}kilo`;
        const projectId = `prj_${s.project.replace(/[^A-Za-z0-9]/g, "").slice(-12)}`;
        const last = s.turns[s.turns.length - 1]!.at + 3_000;
        project.run(projectId, s.project, s.startedAt, s.startedAt);
        session.run(
          id,
          projectId,
          `demo-${s.index}`,
          s.project,
          `New session - ${new Date(s.startedAt).toISOString()}`,
          s.startedAt,
          last,
        );
        for (const [t, turn] of s.turns.entries()) {
          const base = `msg_demo${s.index}${t}`;
          const user = `${base}u`;
          const assistant = `${base}a`;
          message.run(
            user,
            id,
            turn.at,
            turn.at,
            JSON.stringify({ role: "user", time: { created: turn.at } }),
          );
          part.run(
            `prt_${user}1`,
            user,
            id,
            turn.at,
            turn.at,
            JSON.stringify({ type: "text", text: `"${turn.prompt}"` }),
          );
          const done = turn.at + 3_000;
          message.run(
            assistant,
            id,
            turn.at + 1_000,
            done,
            JSON.stringify({
              role: "assistant",
              time: { created: turn.at + 1_000, completed: done },
              modelID: "demo-model",
              providerID: "demo",
              path: { cwd: s.project, root: s.project },
              finish: "stop",
            }),
          );
          part.run(
            `prt_${assistant}1`,
            assistant,
            id,
            turn.at + 1_000,
            turn.at + 1_000,
            JSON.stringify({ type: "text", text: turn.reply }),
          );
          part.run(
            `prt_${assistant}2`,
            assistant,
            id,
            turn.at + 2_000,
            turn.at + 2_000,
            JSON.stringify({
              type: "tool",
              tool: "bash",
              callID: `call_${base}`,
              state: {
                status: "completed",
                input: { command: turn.command },
                output: turn.output,
                title: turn.command,
                metadata: { exit: 0 },
              },
            }),
          );
          part.run(
            `prt_${assistant}3`,
            assistant,
            id,
            done,
            done,
            JSON.stringify({ type: "text", text: turn.answer }),
          );
          messages += 2;
        }
      }
    })();
  } finally {
    db.close();
  }
  return { sessions: sessions.length, messages, files: 1 };
}
