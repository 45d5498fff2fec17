/**
 * Claude Code sessions with injected context records, as Claude Code 2.1 writes them: a hook's
 * output before the first prompt, then the environment, model, agent and skill listings as
 * `attachment` lines right after it, and a token reminder now and then. recall keeps those as
 * role "context" records (sources/claude-code/record.ts), which conversation views leave out
 * unless asked for.
 */
import { BASE_TIME, claudeLine, iso } from "../sources-lines.js";

export interface AttachmentLineOptions {
  uuid: string;
  session: string;
  /** `attachment.type`: environment, model, skill_listing, … */
  type: string;
  text: string;
  at: number;
}

export function claudeAttachmentLine(o: AttachmentLineOptions): string {
  return `${JSON.stringify({
    type: "attachment",
    attachment: { type: o.type },
    rendered: [{ content: `<system-reminder>\n${o.text}\n</system-reminder>` }],
    uuid: o.uuid,
    parentUuid: null,
    isSidechain: false,
    sessionId: o.session,
    cwd: "/nonexistent/recall-test/proj",
    gitBranch: "main",
    version: "2.1.284",
    timestamp: iso(o.at),
  })}\n`;
}

export interface ContextSession {
  /** The JSONL text. */
  text: string;
  /** Record keys (uuids) in time order, context records included. */
  keys: string[];
  /** The uuids of the context records. */
  context: Set<string>;
}

/**
 * A session of `turns` user/assistant turns (`t<i>`, a second apart; turn `hitAt` says
 * `hitText`), with context records: `c-hook` before the first prompt, four listings after it
 * (same time as the prompt, as Claude Code writes them) and a token reminder after every fifth turn.
 */
export function contextSession(
  session: string,
  turns: number,
  hitAt = -1,
  hitText = "",
  start = BASE_TIME,
): ContextSession {
  let text = "";
  const keys: string[] = [];
  const context = new Set<string>();
  const attach = (uuid: string, type: string, body: string, at: number) => {
    text += claudeAttachmentLine({ uuid, session, type, text: body, at });
    keys.push(uuid);
    context.add(uuid);
  };
  attach("c-hook", "hook_success", "SessionStart hook: loaded the project's notes", start - 1000);
  for (let i = 0; i < turns; i++) {
    const at = start + i * 1000;
    const uuid = `t${i}`;
    const words = i === hitAt ? hitText : `routine turn number ${i}`;
    text += claudeLine({ uuid, session, text: words, at, role: i % 2 === 0 ? "user" : "assistant" });
    keys.push(uuid);
    if (i === 0) {
      attach("c-env", "environment", "# Environment\nWorking directory: /nonexistent/recall-test/proj", at);
      attach("c-model", "model", "You are powered by the model named Test 1.", at);
      attach("c-agents", "agent_listing_delta", "Available agent types: general-purpose", at);
      attach("c-skills", "skill_listing", "The following skills are available: pdf, xlsx", at);
    } else if (i % 5 === 4) {
      attach(`c-tokens${i}`, "total_tokens_reminder", `Tokens used so far: ${i * 1000}`, at + 500);
    }
  }
  return { text, keys, context };
}
