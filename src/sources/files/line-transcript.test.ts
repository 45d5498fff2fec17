import { describe, expect, it } from "vitest";
import { ProjectResolver } from "../../platform/project.js";
import type { ConversationRef, SourceRecord } from "../types.js";
import type { JsonlSink } from "./jsonl-source.js";
import { LineTranscriptParser, type LineEvent, type LineFormat, type LineMemory } from "./line-transcript.js";

/** A format whose lines are the LineEvent itself, so the parser is tested on its own. */
const format: LineFormat = {
  source: "toy-lines",
  agent: "toy",
  session: () => "s1",
  map: (text, memory: LineMemory) => {
    const event = JSON.parse(text) as LineEvent & { remember?: string };
    if (event.remember) memory[event.remember] = "x";
    return event;
  },
  maxMemory: 2,
};

function sink() {
  const out = {
    records: [] as SourceRecord[],
    conversations: [] as ConversationRef[],
    aliases: [] as string[],
  };
  const s: JsonlSink = {
    record: (r) => void out.records.push(r),
    conversation: (c) => void out.conversations.push(c),
    alias: (a) => void out.aliases.push(a),
    titleClaim: () => {},
    skipped: () => {},
    malformed: () => {},
    lineOf: () => {},
  };
  return { out, s };
}

const turn = { role: "user", blocks: [{ type: "text", text: "hi" }], isCompactionSummary: false };
const context = { key: "k", path: "/nonexistent/s1.jsonl", mtimeMs: 5 };

describe("LineTranscriptParser", () => {
  it("keeps the first cwd's project, the latest branch, model, title and parent, and resumes from them", () => {
    const parser = new LineTranscriptParser(format, context, null, new ProjectResolver());
    const { out, s } = sink();
    const feed = (event: unknown, offset: number) =>
      parser.line({ text: JSON.stringify(event), offset, end: offset + 1 } as never, s);
    feed({ type: "skip", facts: { cwd: "/nonexistent/a", branch: "main", model: "m1", parent: "s0" } }, 0);
    feed({ type: "skip", facts: { cwd: "/nonexistent/b", branch: "dev", title: "named" } }, 10);
    feed({ type: "record", key: "e1", at: null, turn, model: "m2" }, 20);
    const record = out.records[0]!;
    expect(record).toMatchObject({
      sourceKey: "s1:e1",
      hitId: "transcript:toy:s1:e1",
      at: 5,
      cursor: "20",
      model: "m2",
      branch: "dev",
    });
    expect(record.conversation).toMatchObject({
      id: "toy:s1",
      project: "/nonexistent/a",
      branch: "dev",
      model: "m2",
      title: "named",
      parent: "toy:s0",
    });
    expect(out.aliases).toEqual(["named"]);

    const again = new LineTranscriptParser(
      format,
      { ...context, learned: parser.learned() },
      parser.snapshot(),
      new ProjectResolver(),
    );
    const next = sink();
    again.line(
      { text: JSON.stringify({ type: "record", key: "e2", at: 9, turn }), offset: 30 } as never,
      next.s,
    );
    expect(next.out.records[0]!.conversation).toEqual(record.conversation);
  });

  it("bounds what the format remembers, oldest first", () => {
    const parser = new LineTranscriptParser(format, context, null, new ProjectResolver());
    const { s } = sink();
    for (const [i, key] of ["a", "b", "c"].entries())
      parser.line({ text: JSON.stringify({ type: "skip", remember: key }), offset: i } as never, s);
    expect(parser.snapshot()).toEqual({ b: "x", c: "x" });
  });
});
