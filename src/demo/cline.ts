/**
 * Cline CLI 3.x sessions for the demo corpus: `<clineDir>/data/sessions/<id>/<id>.json` (the
 * metadata) and `<id>.messages.json` (the conversation, Anthropic-style blocks, typed prompts
 * wrapped in `<user_input>`), as docs/sources/cline.md describes. The metadata leaves out Cline's
 * absolute `messages_path`, so the same seed writes the same bytes in any folder.
 */
import path from "node:path";
import type { DemoAgentSession } from "./agent-sessions.js";
import type { SourceCounts } from "./manifest.js";
import { writeWholeFile } from "./writer.js";

const clineId = (s: DemoAgentSession) => `${s.startedAt}_demo${s.index}`;

export function generateCline(sessions: readonly DemoAgentSession[], clineDir: string): SourceCounts {
  let messages = 0;
  for (const s of sessions) {
    const id = clineId(s);
    const dir = path.join(clineDir, "data", "sessions", id);
    const list: unknown[] = [];
    for (const [t, turn] of s.turns.entries()) {
      const call = `call_demo${s.index}_${t}`;
      list.push(
        {
          id: `u_${id}_${t}`,
          role: "user",
          content: [{ type: "text", text: `<user_input mode="act">${turn.prompt}</user_input>` }],
          ts: turn.at,
        },
        {
          id: `msg_${id}_${t}a`,
          role: "assistant",
          content: [
            { type: "text", text: turn.reply },
            { type: "tool_use", id: call, name: "run_commands", input: { commands: [turn.command] } },
          ],
          ts: turn.at + 1_000,
          modelInfo: { id: "demo-model", provider: "openai-compatible" },
        },
        {
          id: `msg_${id}_${t}r`,
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: call,
              name: "run_commands",
              content: [{ query: turn.command, result: turn.output, success: true }],
            },
          ],
          ts: turn.at + 2_000,
        },
        {
          id: `msg_${id}_${t}b`,
          role: "assistant",
          content: [{ type: "text", text: turn.answer }],
          ts: turn.at + 3_000,
          modelInfo: { id: "demo-model", provider: "openai-compatible" },
        },
      );
    }
    messages += list.length;
    const first = s.turns[0]!;
    const last = s.turns[s.turns.length - 1]!;
    writeWholeFile(
      path.join(dir, `${id}.json`),
      JSON.stringify(
        {
          version: 1,
          session_id: id,
          source: "cli",
          started_at: new Date(s.startedAt).toISOString(),
          ended_at: new Date(last.at + 3_000).toISOString(),
          status: "completed",
          provider: "openai-compatible",
          model: "demo-model",
          cwd: s.project,
          workspace_root: s.project,
          prompt: first.prompt,
          metadata: { git: { branch: "main" }, title: first.prompt.slice(0, 120) },
        },
        null,
        2,
      ),
    );
    writeWholeFile(
      path.join(dir, `${id}.messages.json`),
      JSON.stringify(
        {
          version: 1,
          updated_at: new Date(last.at + 3_000).toISOString(),
          agent: "lead",
          sessionId: id,
          messages: list,
        },
        null,
        2,
      ),
    );
  }
  return { sessions: sessions.length, messages, files: sessions.length * 2 };
}
