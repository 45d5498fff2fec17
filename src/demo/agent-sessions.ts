/**
 * The small scripted sessions the demo writes for the agents added after the first three
 * (Cline, Kilo Code, Continue): a few sessions each, one prompt → reply with a shell call and its
 * output → final answer per turn, some resumed with a second turn. Only the content is shared;
 * each agent's file (cline.ts, kilo.ts, continue.ts) writes it in that CLI's own format.
 */
import type { Rng } from "./rng.js";
import type { TextModel } from "./text.js";

export interface DemoAgentTurn {
  at: number;
  prompt: string;
  reply: string;
  command: string;
  output: string;
  answer: string;
}

export interface DemoAgentSession {
  /** 0-based, unique within the agent. */
  index: number;
  project: string;
  startedAt: number;
  turns: DemoAgentTurn[];
}

/** How many sessions each newer agent gets: enough for every shape, small beside the others. */
export const AGENT_SESSIONS = 4;

export function planAgentSessions(
  rng: Rng,
  text: TextModel,
  baseTime: number,
  projects: readonly string[],
): DemoAgentSession[] {
  const sessions: DemoAgentSession[] = [];
  let at = baseTime + rng.range(1, 30) * 24 * 3600_000;
  for (let index = 0; index < AGENT_SESSIONS; index++) {
    const startedAt = at;
    // Every other session is resumed once, as `--continue`/`--resume` appends to it.
    const turnCount = index % 2 === 1 ? 2 : 1;
    const turns: DemoAgentTurn[] = [];
    for (let t = 0; t < turnCount; t++) {
      turns.push({
        at,
        prompt: text.userPrompt(rng),
        reply: text.sentence(rng),
        command: text.command(rng),
        output: text.toolOutput(rng, rng.range(200, 1_500)),
        answer: text.assistantReply(rng),
      });
      at += rng.range(2, 90) * 60_000;
    }
    sessions.push({ index, project: rng.pick(projects), startedAt, turns });
    at += rng.range(1, 10) * 24 * 3600_000;
  }
  return sessions;
}
