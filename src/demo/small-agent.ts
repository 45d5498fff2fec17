import type { SourceCounts } from "./manifest.js";
import type { Rng } from "./rng.js";
import type { TextModel } from "./text.js";

/**
 * What the small demo generators of the agents added after the spec's three (GitHub Copilot CLI,
 * pi) share: a few sessions of prompt, a shell call, its output and a reply, spread over the
 * corpus's year. Each format module writes them its own way; none of them touches another
 * source's random stream, so the spec-era outputs stay byte-identical.
 */
export interface SmallAgentOptions {
  rng: Rng;
  text: TextModel;
  baseTime: number;
  /** Absolute project paths (the corpus's fake HOME). */
  projects: readonly string[];
}

export interface DemoExchange {
  prompt: string;
  intro: string;
  command: string;
  output: string;
  reply: string;
}

export interface DemoSession {
  id: string;
  project: string;
  start: number;
  exchanges: DemoExchange[];
}

const SESSIONS = 4;
const DAY_MS = 24 * 3600 * 1000;

/** A random v4-style uuid from the stream (never crypto: the corpus is deterministic). */
export function demoUuid(rng: Rng): string {
  const h = rng.hex(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function smallAgentSessions({ rng, text, baseTime, projects }: SmallAgentOptions): DemoSession[] {
  const sessions: DemoSession[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const exchanges: DemoExchange[] = [];
    const n = 1 + rng.int(3);
    for (let j = 0; j < n; j++)
      exchanges.push({
        prompt: text.userPrompt(rng),
        intro: text.sentence(rng),
        command: text.command(rng),
        output: text.toolOutput(rng, rng.range(200, 2_000)),
        reply: text.assistantReply(rng),
      });
    sessions.push({
      id: demoUuid(rng),
      project: projects[i % Math.max(1, projects.length)] ?? "/home/demo",
      start: baseTime + Math.floor(((i + rng.next()) / SESSIONS) * 300 * DAY_MS),
      exchanges,
    });
  }
  return sessions;
}

/** Counts of a small agent's corpus: messages are the prompt, call, output and reply of each exchange. */
export const smallAgentCounts = (sessions: DemoSession[], files: number): SourceCounts => ({
  sessions: sessions.length,
  messages: sessions.reduce((sum, s) => sum + 4 * s.exchanges.length, 0),
  files,
});
