/**
 * A toy agent that keeps each session as one JSON document rewritten in place (as Cline and
 * Continue do): `<HOME>/.toyjson/sessions/<id>.json` holding
 * {"id", "title", "messages": [{"at", "role", "text"}]}. One definition over the JSON document base.
 */
import path from "node:path";
import { z } from "zod";
import type { Env } from "../../src/platform/paths.js";
import { defineSource, readable } from "../../src/sources/definition.js";
import { JsonDocumentSource } from "../../src/sources/files/json-document-source.js";
import { nonEmptyDir } from "../../src/sources/files/presence.js";
import { conversationId, transcriptHitId } from "../../src/sources/ids.js";
import { isRecord, str } from "../../src/sources/shared/json.js";
import type { ConversationRef, SourceRecord } from "../../src/sources/types.js";

const AGENT = "toyjson";
export const toyJsonSessions = (env: Env) => path.join(env.HOME ?? "/", ".toyjson", "sessions");

function read(_file: string, value: unknown) {
  if (!isRecord(value) || !str(value["id"]) || !Array.isArray(value["messages"])) return null;
  const session = str(value["id"])!;
  const conversation: ConversationRef = {
    id: conversationId(AGENT, session),
    source: AGENT,
    agent: AGENT,
    kind: "transcript",
    project: null,
    session,
    parent: null,
    title: str(value["title"]) ?? null,
  };
  const records: SourceRecord[] = [];
  for (const [i, m] of (value["messages"] as unknown[]).entries()) {
    if (!isRecord(m) || typeof m["text"] !== "string" || typeof m["at"] !== "number") continue;
    const role = m["role"] === "assistant" ? "assistant" : "user";
    records.push({
      sourceKey: `${session}:${i}`,
      hitId: transcriptHitId(AGENT, session, String(i)),
      conversation,
      at: m["at"],
      role,
      kind: "transcript",
      content: {
        type: "turn",
        turn: { role, blocks: [{ type: "text", text: m["text"] }], isCompactionSummary: false },
      },
      cursor: String(i),
      message: null,
      job: null,
      run: null,
    });
  }
  return { conversation, records, aliases: conversation.title ? [conversation.title] : [] };
}

export const toyJson = readable(
  defineSource({
    name: AGENT,
    agent: AGENT,
    filter: { own: true },
    displayName: "Toy JSON",
    conversationId: "toyjson:<session>",
    env: ["HOME"],
    roots: (env) => [toyJsonSessions(env)],
    lookedIn: (env) => [toyJsonSessions(env)],
    hasHistory: (env) => nonEmptyDir(toyJsonSessions(env)),
    config: { toyjson: z.boolean().default(true) },
    limits: ["maxEntries", "maxFiles"],
  }),
  ({ env, settings, maxLineBytes }) =>
    settings.toyjson
      ? [
          new JsonDocumentSource({
            name: AGENT,
            agent: AGENT,
            roots: () => [toyJsonSessions(env)],
            rule: ({ name, isFile, depth }) =>
              isFile && depth === 0 && name.endsWith(".json") ? "file" : "skip",
            read,
            ...(maxLineBytes !== undefined ? { maxDocumentBytes: maxLineBytes } : {}),
          }),
        ]
      : [],
);

export const toyJsonDocument = (id: string, messages: { at: number; text: string; role?: string }[]) =>
  JSON.stringify(
    { id, title: `session ${id}`, messages: messages.map((m) => ({ role: "user", ...m })) },
    null,
    2,
  );
