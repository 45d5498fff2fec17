/**
 * Continue CLI 1.5 sessions for the demo corpus: `<continueDir>/sessions/<id>.json` (history
 * items; a call's output in its item's toolCallStates; no times) and the `sessions.json` index
 * with each session's dateCreated, as docs/sources/continue.md describes.
 */
import path from "node:path";
import type { DemoAgentSession } from "./agent-sessions.js";
import type { SourceCounts } from "./manifest.js";
import type { Rng } from "./rng.js";
import { writeWholeFile } from "./writer.js";

/** A deterministic UUID-shaped id. */
const uuid = (rng: Rng) => {
  const hex = Array.from({ length: 32 }, () => rng.int(16).toString(16)).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
};

export function generateContinue(
  rng: Rng,
  sessions: readonly DemoAgentSession[],
  continueDir: string,
): SourceCounts {
  const dir = path.join(continueDir, "sessions");
  const index: unknown[] = [];
  let messages = 0;
  for (const s of sessions) {
    const id = uuid(rng);
    const history: unknown[] = [];
    for (const [t, turn] of s.turns.entries()) {
      const call = `call_demo${s.index}_${t}`;
      const toolCall = {
        id: call,
        type: "function",
        function: { name: "Bash", arguments: JSON.stringify({ command: turn.command }) },
      };
      history.push(
        { message: { role: "user", content: turn.prompt }, contextItems: [], editorState: turn.prompt },
        {
          message: {
            role: "assistant",
            content: turn.reply,
            toolCalls: [toolCall],
            usage: { model: "demo-model" },
          },
          contextItems: [],
          toolCallStates: [
            {
              toolCallId: call,
              toolCall,
              status: "done",
              parsedArgs: { command: turn.command },
              output: [{ content: turn.output, name: "Tool Result", description: "Tool execution result" }],
            },
          ],
        },
        {
          message: { role: "assistant", content: turn.answer, usage: { model: "demo-model" } },
          contextItems: [],
        },
      );
    }
    messages += history.length;
    writeWholeFile(
      path.join(dir, `${id}.json`),
      JSON.stringify(
        { sessionId: id, title: "Untitled Session", workspaceDirectory: s.project, history },
        null,
        2,
      ),
    );
    index.push({
      sessionId: id,
      title: "Untitled Session",
      dateCreated: String(s.startedAt),
      workspaceDirectory: s.project,
      messageCount: history.length,
    });
  }
  writeWholeFile(path.join(dir, "sessions.json"), JSON.stringify(index, null, 2));
  return { sessions: sessions.length, messages, files: sessions.length + 1 };
}
