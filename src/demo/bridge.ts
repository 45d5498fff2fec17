import { openBridgeWriter } from "../bridge/writer.js";
import type { MessageKind } from "../bridge/records.js";
import type { Rng } from "./rng.js";
import type { TextModel } from "./text.js";

/**
 * The demo's agent-bridge store, written through the bridge writer (so the demo exercises the
 * same schema, insert queue and run naming a broker does). Deterministic: explicit ids and
 * times, text from the seeded model, the writer's clock pinned to the corpus's base time.
 */
export interface BridgeDemoCounts {
  messages: number;
  cold: number;
  questions: number;
  decisions: number;
  runs: number;
  bindings: number;
}

const PEERS = ["lead", "builder-1", "builder-2", "reviewer"];
const KINDS: MessageKind[] = ["message", "message", "progress", "report", "approval"];
const HOUR = 3_600_000;

export function generateBridge(
  rng: Rng,
  text: TextModel,
  root: string,
  baseTime: number,
  projects: readonly string[],
): BridgeDemoCounts {
  let now = baseTime;
  const tick = () => (now += rng.range(60_000, 6 * HOUR));
  const writer = openBridgeWriter(root, { clock: () => now });
  const counts: BridgeDemoCounts = { messages: 0, cold: 0, questions: 0, decisions: 0, runs: 0, bindings: 0 };
  const pick = <T>(list: readonly T[]): T => list[rng.int(list.length)]!;
  const project = () => (projects.length > 0 ? pick(projects) : undefined);
  try {
    for (const [i, peer] of PEERS.entries()) {
      writer.bind({
        peer,
        agent: i % 2 === 0 ? "claude" : "codex",
        session: `demo-session-${peer}`,
        at: tick(),
      });
      counts.bindings += 1;
    }
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      const sender = pick(PEERS);
      // Every fifth message is a broadcast to every other peer: one row, many recipients.
      const recipients =
        i % 5 === 0 ? PEERS.filter((p) => p !== sender) : [pick(PEERS.filter((p) => p !== sender))];
      const id = `m-demo-${String(i).padStart(3, "0")}`;
      writer.post({
        id,
        sender,
        recipients,
        kind: pick(KINDS),
        body: text.paragraph(rng, 2, 0),
        conversation: `demo-thread-${i % 4}`,
        project: project(),
        job: i % 3 === 0 ? "demo-build" : undefined,
        at: tick(),
      });
      ids.push(id);
      counts.messages += 1;
    }
    counts.cold = writer.archiveMessages(ids.slice(0, 8));
    for (let i = 0; i < 6; i++) {
      const id = `q-demo-${i}`;
      writer.ask({ id, asker: pick(PEERS), question: text.userPrompt(rng), project: project(), at: tick() });
      if (i % 3 !== 2) writer.answer({ question: id, answer: text.sentence(rng), by: "owner", at: tick() });
      counts.questions += 1;
    }
    for (const topic of ["storage-engine", "api-style", "release-cadence"]) {
      const revisions = 1 + rng.int(3);
      for (let r = 0; r < revisions; r++) {
        writer.decide({
          topic,
          decision: text.sentence(rng),
          rationale: text.sentence(rng),
          by: pick(PEERS),
          at: tick(),
        });
        counts.decisions += 1;
      }
    }
    for (let i = 0; i < 3; i++) {
      const peer = pick(PEERS);
      const lines = Array.from({ length: 20 + rng.int(40) }, () => text.sentence(rng)).join("\n");
      const run = writer.startRun({
        job: i === 0 ? "demo-build" : `demo-job-${i}`,
        at: tick(),
        log: `${lines}\n`,
        metadata: {
          agent: "codex",
          session: `demo-session-${peer}`,
          peer,
          status: "done",
          exitCode: 0,
          ticket: `DEMO-${100 + i}`,
        },
      });
      if (i === 2) writer.archiveRun(run.name.log);
      counts.runs += 1;
    }
  } finally {
    writer.close();
  }
  return counts;
}
