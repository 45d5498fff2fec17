/**
 * Gemini CLI chats (0.61's operation log) for the demo: `<.gemini>/tmp/<project>/chats/
 * session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl` beside `.project_root`. Each chat opens with a header
 * and a `$set.messages` session context, logs a tool-calling reply twice under one id (the second
 * copy adds `toolCalls`), answers the call in a user `functionResponse`, and patches
 * `lastUpdated` after every message. The last chat is resumed: a second header and a `$set`
 * replay of its history, then a new turn. One build output is logged truncated, head and tail,
 * naming a side file under `tool-outputs/` that holds it whole.
 */
import path from "node:path";
import type { SourceCounts } from "./manifest.js";
import { DEMO_HOME, iso } from "./plan.js";
import type { Rng } from "./rng.js";
import type { TextModel } from "./text.js";
import { writeWholeFile } from "./writer.js";

export const GEMINI_DEMO_SESSIONS = 3;

interface Message {
  id: string;
  timestamp: string;
  type: "user" | "gemini";
  content: unknown;
  [key: string]: unknown;
}

const line = (value: unknown) => `${JSON.stringify(value)}\n`;

function sessionContext(rng: Rng, project: string, dir: string, at: number): Message {
  const text =
    `<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n` +
    `My operating system is: linux\nThe project's temporary directory is: ${dir}\n` +
    `- **Workspace Directories:**\n  - ${project}\n- **Directory Structure:**\n\n${project}/\n├───package.json\n└───src/\n</session_context>`;
  return { id: rng.hex(16), timestamp: iso(at), type: "user", content: [{ text }] };
}

/** Writes the demo's Gemini CLI chats under `geminiDir` (a `.gemini` folder). */
export function generateGeminiCli(
  rng: Rng,
  text: TextModel,
  geminiDir: string,
  baseTime: number,
  projects: readonly string[],
): SourceCounts {
  const counts: SourceCounts = { sessions: 0, messages: 0, files: 0 };
  for (let s = 0; s < GEMINI_DEMO_SESSIONS && projects.length > 0; s++) {
    const project = projects[s % projects.length]!;
    const slug = path.basename(project);
    const dir = path.join(geminiDir, "tmp", slug);
    // Paths written inside the chat name the corpus's fake HOME, whichever folder holds it.
    const shownDir = path.join(DEMO_HOME, ".gemini", "tmp", slug);
    const sessionId = rng.uuid4();
    let at = baseTime + (s + 1) * 7 * 24 * 3600_000 + rng.int(3600_000);
    const header = () => ({
      sessionId,
      projectHash: rng.hex(32),
      startTime: iso(at),
      lastUpdated: iso(at),
      kind: "main",
    });
    const out: string[] = [
      line(header()),
      line({ $set: { messages: [sessionContext(rng, project, shownDir, at)] } }),
    ];
    const history: Message[] = [];
    const log = (message: Message) => {
      out.push(line(message), line({ $set: { lastUpdated: message.timestamp } }));
      if (message.type === "user" || !history.some((m) => m.id === message.id)) counts.messages++;
      history.push(message);
    };
    const turns = 2 + rng.int(2);
    for (let t = 0; t < turns; t++) {
      at += 60_000 + rng.int(600_000);
      log({ id: rng.uuid4(), timestamp: iso(at), type: "user", content: [{ text: text.userPrompt(rng) }] });
      const reply: Message = {
        id: rng.uuid4(),
        timestamp: iso((at += 2_000)),
        type: "gemini",
        content: text.assistantReply(rng),
        thoughts: [{ subject: "Planning", description: text.thinking(rng) }],
        model: "gemini-2.5-pro",
      };
      log(reply);
      if (t === turns - 1 && s !== 0) continue;
      // The first chat's last turn writes a file; every other tool turn runs a command.
      const write = s === 0 && t === turns - 1;
      const callId = `${write ? "write_file" : "run_shell_command"}_${at}_0`;
      const args = write
        ? { file_path: `${project}/docs/notes.md`, content: text.paragraph(rng, 3) }
        : { command: text.command(rng), description: "Run shell command" };
      const big = s === 1 && t === 0;
      const full = text.toolOutput(rng, big ? 60_000 : 400);
      const sideName = path.join("tool-outputs", `session-${sessionId}`, `${callId}.txt`);
      const sideFile = path.join(shownDir, sideName);
      const output = write
        ? `Successfully created and wrote to new file: ${args.file_path}.`
        : big
          ? `Output too large. Showing first 8,000 and last 32,000 characters. For full output see: ${sideFile}\n` +
            `${full.slice(0, 8_000)}\n... [truncated] ...\n${full.slice(-32_000)}`
          : `<untrusted_context>\nOutput: ${full}\nProcess Group PGID: ${1000 + rng.int(9000)}\n</untrusted_context>`;
      if (big) {
        writeWholeFile(path.join(dir, sideName), full);
        counts.files++;
      }
      const response = {
        functionResponse: {
          id: callId,
          name: write ? "write_file" : "run_shell_command",
          response: { output },
        },
      };
      at += 3_000;
      log({
        ...reply,
        toolCalls: [
          {
            id: callId,
            name: response.functionResponse.name,
            args,
            result: [response],
            status: "success",
            timestamp: iso(at),
            displayName: write ? "WriteFile" : "Shell",
          },
        ],
      });
      log({ id: rng.uuid4(), timestamp: iso(at), type: "user", content: [response] });
      log({
        id: rng.uuid4(),
        timestamp: iso((at += 2_000)),
        type: "gemini",
        content: text.assistantReply(rng),
        model: "gemini-2.5-pro",
      });
    }
    if (s === GEMINI_DEMO_SESSIONS - 1) {
      // A resume: a new header, the context again, the history replayed by `$set`, then a turn.
      at += 3600_000;
      out.push(line(header()), line({ $set: { messages: [sessionContext(rng, project, shownDir, at)] } }));
      out.push(line({ $set: { sessionId } }), line({ $set: { messages: history, lastUpdated: iso(at) } }));
      log({
        id: rng.uuid4(),
        timestamp: iso((at += 1_000)),
        type: "user",
        content: [{ text: text.userPrompt(rng) }],
      });
      log({
        id: rng.uuid4(),
        timestamp: iso((at += 2_000)),
        type: "gemini",
        content: text.assistantReply(rng),
        model: "gemini-2.5-pro",
      });
    }
    const stamp = iso(history[0]?.timestamp ? Date.parse(history[0].timestamp) : at)
      .slice(0, 16)
      .replace(":", "-");
    writeWholeFile(path.join(dir, "chats", `session-${stamp}-${sessionId.slice(0, 8)}.jsonl`), out.join(""));
    writeWholeFile(path.join(dir, ".project_root"), project);
    counts.sessions++;
    counts.files += 2;
  }
  return counts;
}
