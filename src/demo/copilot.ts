import path from "node:path";
import type { SourceCounts } from "./manifest.js";
import { iso } from "./plan.js";
import { demoUuid, smallAgentCounts, smallAgentSessions, type SmallAgentOptions } from "./small-agent.js";
import { writeWholeFile } from "./writer.js";

/**
 * GitHub Copilot CLI sessions as version 1.0.x writes them (docs/sources/copilot.md):
 * `<home>/session-state/<id>/events.jsonl`, one `{type, data, id, timestamp, parentId}` event a
 * line, chained by parentId.
 */
export function generateCopilot(options: SmallAgentOptions, copilotHome: string): SourceCounts {
  const { rng } = options;
  const sessions = smallAgentSessions(options);
  for (const session of sessions) {
    let at = session.start;
    let parent: string | null = null;
    const lines: string[] = [];
    const event = (type: string, data: Record<string, unknown>) => {
      const id = demoUuid(rng);
      at += 500 + rng.int(20_000);
      lines.push(JSON.stringify({ type, data, id, timestamp: iso(at), parentId: parent }));
      parent = id;
    };
    const context = { cwd: session.project, gitRoot: session.project, branch: "main" };
    event("session.start", {
      sessionId: session.id,
      version: 1,
      producer: "copilot-agent",
      copilotVersion: "1.0.102",
      startTime: iso(at),
      selectedModel: "gpt-5-mini",
      context,
    });
    for (const [turn, x] of session.exchanges.entries()) {
      const messageId = demoUuid(rng);
      event("user.message", {
        content: x.prompt,
        transformedContent: `<current_datetime>${iso(at)}</current_datetime>\n\n${x.prompt}`,
        messageId,
        turnId: String(turn),
      });
      const call = `call_${rng.hex(12)}`;
      event("assistant.message", {
        messageId: demoUuid(rng),
        originatingMessageId: messageId,
        model: "gpt-5-mini",
        content: x.intro,
        toolRequests: [
          {
            toolCallId: call,
            name: "bash",
            arguments: { command: x.command, description: "Run shell command" },
          },
        ],
      });
      event("tool.execution_start", {
        toolCallId: call,
        toolName: "bash",
        arguments: { command: x.command },
      });
      event("tool.execution_complete", {
        toolCallId: call,
        success: true,
        shellExecution: { exitCode: 0 },
        result: { content: `${x.output}\n<shellId: 0 completed with exit code 0>` },
      });
      event("assistant.message", {
        messageId: demoUuid(rng),
        originatingMessageId: messageId,
        model: "gpt-5-mini",
        content: x.reply,
        toolRequests: [],
      });
    }
    event("session.shutdown", { shutdownType: "routine" });
    writeWholeFile(
      path.join(copilotHome, "session-state", session.id, "events.jsonl"),
      `${lines.join("\n")}\n`,
    );
  }
  return smallAgentCounts(sessions, sessions.length);
}
