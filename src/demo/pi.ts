import path from "node:path";
import type { SourceCounts } from "./manifest.js";
import { iso } from "./plan.js";
import { smallAgentCounts, smallAgentSessions, type SmallAgentOptions } from "./small-agent.js";
import { writeWholeFile } from "./writer.js";

/**
 * pi sessions as version 0.7x writes them (docs/sources/pi.md):
 * `<agent dir>/sessions/--<cwd>--/<time>_<id>.jsonl`, a `session` header, then entries linked by
 * id/parentId.
 */
export function generatePi(options: SmallAgentOptions, agentDir: string): SourceCounts {
  const { rng } = options;
  const sessions = smallAgentSessions(options);
  for (const session of sessions) {
    let at = session.start;
    let parent: string | null = null;
    const lines = [
      JSON.stringify({
        type: "session",
        version: 3,
        id: session.id,
        timestamp: iso(at),
        cwd: session.project,
      }),
    ];
    const entry = (type: string, fields: Record<string, unknown>) => {
      const id = rng.hex(4);
      at += 500 + rng.int(20_000);
      lines.push(JSON.stringify({ type, id, parentId: parent, timestamp: iso(at), ...fields }));
      parent = id;
    };
    const message = (message: Record<string, unknown>) =>
      entry("message", { message: { ...message, timestamp: at } });
    entry("model_change", { provider: "openai", modelId: "gpt-5-mini" });
    for (const x of session.exchanges) {
      message({ role: "user", content: [{ type: "text", text: x.prompt }] });
      const call = `call_${rng.hex(12)}`;
      message({
        role: "assistant",
        content: [
          { type: "text", text: x.intro },
          { type: "toolCall", id: call, name: "bash", arguments: { command: x.command } },
        ],
        model: "gpt-5-mini",
        stopReason: "toolUse",
      });
      message({
        role: "toolResult",
        toolCallId: call,
        toolName: "bash",
        content: [{ type: "text", text: x.output }],
        isError: false,
      });
      message({
        role: "assistant",
        content: [{ type: "text", text: x.reply }],
        model: "gpt-5-mini",
        stopReason: "stop",
      });
    }
    const folder = `--${session.project.replace(/^\//, "").replace(/\//g, "-")}--`;
    const name = `${iso(session.start).replace(/[:.]/g, "-")}_${session.id}.jsonl`;
    writeWholeFile(path.join(agentDir, "sessions", folder, name), `${lines.join("\n")}\n`);
  }
  return smallAgentCounts(sessions, sessions.length);
}
