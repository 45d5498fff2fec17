/**
 * Qwen Code chats (0.24) for the demo: `<.qwen>/projects/<cwd slug>/chats/<sessionId>.jsonl`, one
 * line per event in an envelope (`uuid`, `parentUuid` chain, `sessionId`, `timestamp`, `cwd`,
 * `version`, `gitBranch`): prompts, model replies in Gemini-API parts (thoughts, function calls),
 * tool results with `toolCallResult`, and `system` telemetry lines. One build output is logged
 * truncated and saved whole under `<.qwen>/tmp/<hash>/`. The last chat is resumed: its new
 * prompt continues the same file and chain.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import type { SourceCounts } from "./manifest.js";
import { DEMO_HOME, claudeSlug, iso } from "./plan.js";
import type { Rng } from "./rng.js";
import type { TextModel } from "./text.js";
import { writeWholeFile } from "./writer.js";

export const QWEN_DEMO_SESSIONS = 3;

/** Writes the demo's Qwen Code chats under `qwenDir` (a `.qwen` folder). */
export function generateQwenCode(
  rng: Rng,
  text: TextModel,
  qwenDir: string,
  baseTime: number,
  projects: readonly string[],
): SourceCounts {
  const counts: SourceCounts = { sessions: 0, messages: 0, files: 0 };
  for (let s = 0; s < QWEN_DEMO_SESSIONS && projects.length > 0; s++) {
    const cwd = projects[(s + 1) % projects.length]!;
    const sessionId = rng.uuid4();
    let at = baseTime + (s + 1) * 9 * 24 * 3600_000 + rng.int(3600_000);
    let parent: string | null = null;
    const out: string[] = [];
    const put = (type: string, fields: Record<string, unknown>) => {
      const uuid = rng.uuid4();
      out.push(
        `${JSON.stringify({
          uuid,
          parentUuid: parent,
          sessionId,
          timestamp: iso(at),
          type,
          cwd,
          version: "0.24.4",
          gitBranch: s === 2 ? "feature/retry" : "main",
          ...fields,
        })}\n`,
      );
      parent = uuid;
      if (type !== "system") counts.messages++;
    };
    const prompt = () => {
      at += 60_000 + rng.int(600_000);
      put("user", {
        provenance: "real_user",
        message: { role: "user", parts: [{ text: text.userPrompt(rng) }] },
      });
    };
    const reply = (parts: unknown[]) => {
      at += 2_000;
      put("assistant", {
        provenance: "assistant_output",
        model: "qwen3-coder-plus",
        message: { role: "model", parts },
        usageMetadata: { promptTokenCount: 1000 + rng.int(9000), candidatesTokenCount: 50 + rng.int(500) },
      });
      put("system", {
        subtype: "ui_telemetry",
        systemPayload: {
          uiEvent: { "event.name": "qwen-code.api_response", duration_ms: 300 + rng.int(900) },
        },
      });
    };
    const turns = 2 + rng.int(2);
    for (let t = 0; t < turns; t++) {
      prompt();
      const callId = `call_${rng.hex(12)}`;
      const command = text.command(rng);
      reply([
        { text: text.thinking(rng), thought: true },
        { text: text.assistantReply(rng) },
        { functionCall: { id: callId, name: "run_shell_command", args: { command } } },
      ]);
      const big = s === 1 && t === 0;
      const full = text.toolOutput(rng, big ? 60_000 : 400);
      const body = `Command: ${command}\nDirectory: (root)\nOutput: ${full}\nError: (none)\nExit Code: 0`;
      const sideName = path.join(
        "tmp",
        createHash("sha256").update(cwd).digest("hex"),
        `run_shell_command_${rng.hex(6)}.output`,
      );
      // The path written inside the chat names the corpus's fake HOME, whichever folder holds it.
      const side = path.join(DEMO_HOME, ".qwen", sideName);
      const output = big
        ? `Tool output was too large and has been truncated.\nThe full output has been saved to: ${side}\n\n` +
          `Truncated part of the output:\n${body.slice(0, 2_000)}\n... [CONTENT TRUNCATED] ...\n${body.slice(-2_000)}`
        : body;
      if (big) {
        writeWholeFile(path.join(qwenDir, sideName), body);
        counts.files++;
      }
      at += 3_000;
      put("tool_result", {
        provenance: "tool_result",
        message: {
          role: "user",
          parts: [{ functionResponse: { id: callId, name: "run_shell_command", response: { output } } }],
        },
        toolCallResult: {
          callId,
          status: "success",
          resultDisplay: {
            type: "shell_result",
            exitCode: 0,
            truncated: big,
            outputFiles: big ? [side] : [],
          },
        },
      });
      reply([{ text: text.assistantReply(rng) }]);
    }
    if (s === QWEN_DEMO_SESSIONS - 1) {
      // `--continue`: the same file, the chain carried on.
      at += 3600_000;
      prompt();
      reply([{ text: text.assistantReply(rng) }]);
    }
    writeWholeFile(
      path.join(qwenDir, "projects", claudeSlug(cwd), "chats", `${sessionId}.jsonl`),
      out.join(""),
    );
    counts.sessions++;
    counts.files++;
  }
  return counts;
}
