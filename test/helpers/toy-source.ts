/**
 * A toy agent, added the way docs/adding-a-source.md says: one definition over the JSONL base.
 * Its transcripts are `<TOY_HOME or ~/.toy>/sessions/<session>.jsonl`, one JSON object a line:
 * {"at": epoch ms, "role": "user" | "assistant", "text": "..."}.
 */
import path from "node:path";
import { z } from "zod";
import type { Env } from "../../src/platform/paths.js";
import { defineSource, readable } from "../../src/sources/definition.js";
import type { JsonlParser, JsonlSink, ParserContext } from "../../src/sources/files/jsonl-source.js";
import { JsonlFileSource } from "../../src/sources/files/jsonl-source.js";
import type { JsonlLine } from "../../src/sources/files/jsonl-reader.js";
import { nonEmptyDir } from "../../src/sources/files/presence.js";
import { conversationId, transcriptHitId } from "../../src/sources/ids.js";
import type { ConversationRef } from "../../src/sources/types.js";

const TOY_AGENT = "toy";
export const toyHome = (env: Env) => path.resolve(env.TOY_HOME || path.join(env.HOME ?? "/", ".toy"));
export const toySessions = (env: Env) => path.join(toyHome(env), "sessions");

class ToyParser implements JsonlParser {
  readonly conversationId: string;
  private readonly session: string;
  private readonly conversation: ConversationRef;

  constructor(context: ParserContext) {
    this.session = path.basename(context.path, ".jsonl");
    this.conversationId = conversationId(TOY_AGENT, this.session);
    this.conversation = {
      id: this.conversationId,
      source: "toy",
      agent: TOY_AGENT,
      kind: "transcript",
      project: null,
      session: this.session,
      parent: null,
      title: null,
    };
  }

  line(line: JsonlLine, sink: JsonlSink): void {
    let value: { at?: unknown; role?: unknown; text?: unknown };
    try {
      value = JSON.parse(line.text) as typeof value;
    } catch {
      sink.malformed();
      return;
    }
    const role = value.role === "assistant" ? "assistant" : "user";
    if (typeof value.text !== "string" || typeof value.at !== "number") {
      sink.skipped();
      return;
    }
    sink.record({
      // Unique within the source, not only the file: two sessions both have a line at offset 0.
      sourceKey: `${this.session}:${line.offset}`,
      hitId: transcriptHitId(TOY_AGENT, this.session, String(line.offset)),
      conversation: this.conversation,
      at: value.at,
      role,
      kind: "transcript",
      content: {
        type: "turn",
        turn: { role, blocks: [{ type: "text", text: value.text }], isCompactionSummary: false },
      },
      cursor: String(line.offset),
      message: null,
      job: null,
      run: null,
    });
  }

  drain(): void {}
  heldFrom(): number | null {
    return null;
  }
  snapshot(): unknown {
    return null;
  }
}

export const toy = readable(
  defineSource({
    name: "toy",
    agent: TOY_AGENT,
    filter: { own: true },
    displayName: "Toy Agent",
    conversationId: "toy:<session>",
    env: ["TOY_HOME"],
    roots: (env) => [toyHome(env)],
    lookedIn: (env) => [toySessions(env)],
    hasHistory: (env) => nonEmptyDir(toySessions(env)),
    config: { toy: z.boolean().default(true) },
    limits: ["maxEntries", "maxFiles"],
  }),
  ({ env, settings, maxLineBytes }) =>
    settings.toy
      ? [
          new JsonlFileSource({
            name: "toy",
            agent: TOY_AGENT,
            roots: () => [toySessions(env)],
            rule: ({ name, isFile, depth }) =>
              isFile && depth === 0 && name.endsWith(".jsonl") ? "file" : "skip",
            identify: (file) => (file.endsWith(".jsonl") ? { key: file, priority: 0 } : null),
            createParser: (context) => new ToyParser(context),
            ...(maxLineBytes !== undefined ? { maxLineBytes } : {}),
          }),
        ]
      : [],
);

export const toyLine = (at: number, text: string, role: "user" | "assistant" = "user") =>
  `${JSON.stringify({ at, role, text })}\n`;
