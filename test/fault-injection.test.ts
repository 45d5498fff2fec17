/**
 * A seeded fault-injection loop over real processes (issue #30): between indexing ticks,
 * transcript files are appended to, cut short (mid-line too), rewritten, deleted and written
 * again, and the broker (`recall mcp`) is killed, sometimes while it indexes. At the end every
 * record ever committed is still retained, with its text, exactly once; and a session forgotten
 * on the way leaves no byte of its text in any recall file.
 */
import Database from "better-sqlite3";
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI } from "./helpers/cli.js";
import { createTranscriptHome, type TranscriptHome } from "./helpers/transcript-home.js";
import { filesHolding } from "./helpers/leftovers.js";
import { BASE_TIME, claudeLine } from "./sources-lines.js";

/** mulberry32: a small seeded generator, so a failing run can be replayed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = Number(process.env.RECALL_FAULT_SEED ?? 30);
const STEPS = 24;
const SESSIONS = [
  "0f1e2d3c-4b5a-4968-8776-655443322110",
  "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
  "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
  "3c4d5e6f-7a8b-4c9d-8e0f-2a3b4c5d6e7f",
];
/** The session forgotten half way, and the word only its lines hold. */
const FORGOTTEN = SESSIONS[3]!;
const MARK = "quixoticforgottenmarker";

describe("seeded faults between indexing ticks", () => {
  let h: TranscriptHome;
  /** Every `recall mcp` started: they elect one broker among them. */
  let brokers: ChildProcess[] = [];
  afterEach(() => {
    for (const b of brokers) b.kill("SIGKILL");
    brokers = [];
    h?.cleanup();
  });

  it("keep every committed record exactly once, and forgets leave no byte behind", async () => {
    h = createTranscriptHome();
    const random = rng(SEED);
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
    const file = (session: string) => path.join(h.claudeDir, `${session}.jsonl`);
    /** Every line each session's file held at some time (rewrites reuse some of them). */
    const written = new Map<string, string[]>(SESSIONS.map((s) => [s, []]));
    let n = 0;
    const newLine = (session: string) => {
      n += 1;
      const word = session === FORGOTTEN ? MARK : "routine";
      const line = claudeLine({
        uuid: `u-${n}`,
        session,
        role: n % 2 ? "assistant" : "user",
        text: `line ${n} of the ${word} ledger in ${session.slice(0, 8)}`,
        at: BASE_TIME + n * 1000,
      });
      written.get(session)!.push(line);
      return line;
    };

    /** What the processes said on stderr, the newest last: a failing run shows the error's kind. */
    let said = "";
    const keepStderr = (child: ChildProcess, name: string) =>
      child.stderr!.on("data", (d: Buffer) => (said = (said + `${name}: ${d.toString()}`).slice(-4000)));
    const startBroker = () => {
      const broker = spawn(process.execPath, [CLI, "mcp"], { env: h.env, stdio: ["pipe", "ignore", "pipe"] });
      keepStderr(broker, "mcp");
      brokers.push(broker);
    };
    /** SIGKILL, as a crash or an OOM kill would: whichever of them is the broker dies mid-work. */
    const killBrokers = () => {
      for (const b of brokers) b.kill("SIGKILL");
      brokers = [];
    };
    const index = async (killMidway: boolean) => {
      const child = spawn(process.execPath, [CLI, "index"], {
        env: h.env,
        stdio: ["ignore", "ignore", "pipe"],
      });
      keepStderr(child, "index");
      const done = new Promise<number | null>((resolve) => child.on("close", resolve));
      if (killMidway) {
        await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 400)));
        killBrokers();
      }
      return done;
    };

    let kills = 0;
    /** Every record committed so far: conversation and key to text. */
    const committed = new Map<string, string>();
    let forgotten = false;
    const observe = () => {
      const db = new Database(path.join(h.recallHome, "history.db"), { readonly: true });
      try {
        const rows = db.prepare("SELECT conversation, record_key AS key, text FROM recall_records").all() as {
          conversation: string;
          key: string;
          text: string;
        }[];
        for (const row of rows) {
          const id = `${row.conversation}\u0000${row.key}`;
          const before = committed.get(id);
          // A committed record is never rewritten with other text (a rewrite is kept beside it).
          if (before !== undefined) expect(row.text, id).toBe(before);
          committed.set(id, row.text);
        }
      } finally {
        db.close();
      }
    };

    for (const session of SESSIONS) writeFileSync(file(session), newLine(session) + newLine(session));
    startBroker();
    for (let step = 0; step < STEPS; step++) {
      const live = SESSIONS.filter((s) => !(forgotten && s === FORGOTTEN));
      for (let change = 0; change < 3; change++) {
        const session = pick(live);
        const target = file(session);
        const op = pick(["append", "append", "truncate", "rewrite", "delete", "empty"] as const);
        if (op === "append" || !existsSync(target)) {
          appendFileSync(target, newLine(session) + (random() < 0.5 ? newLine(session) : ""));
        } else if (op === "truncate") {
          const size = readFileSync(target).length;
          truncateSync(target, Math.floor(random() * size)); // mid-line as often as not
        } else if (op === "rewrite") {
          // Some lines it held before (same ids, same text) and some new ones, in another order.
          const old = written.get(session)!.filter(() => random() < 0.4);
          writeFileSync(target, [newLine(session), ...old, newLine(session)].join(""));
        } else if (op === "delete") {
          rmSync(target);
        } else {
          writeFileSync(target, "");
        }
      }
      const kill = brokers.length > 0 && random() < 0.3;
      if (kill) kills += 1;
      let code = await index(kill);
      // Sometimes two at once: they elect one; the other takes over when it dies.
      if (kill || random() < 0.2) startBroker();
      if (random() < 0.1) startBroker();
      // A tick cut short by the kill is simply done again; only what committed is observed.
      for (let retry = 0; code !== 0 && retry < 5; retry++) code = await index(false);
      expect(code, said).toBe(0);
      observe();

      if (step === Math.floor(STEPS / 2)) {
        const forgot = h.run("forget", "--session", FORGOTTEN, "--yes");
        expect(forgot.status, forgot.stderr).toBe(0);
        forgotten = true;
        rmSync(file(FORGOTTEN), { force: true });
        for (const id of [...committed.keys()])
          if (id.startsWith(`claude:${FORGOTTEN}`)) committed.delete(id);
      }
    }
    killBrokers();

    const db = new Database(path.join(h.recallHome, "history.db"), { readonly: true });
    try {
      const text = db.prepare("SELECT text FROM recall_records WHERE conversation = ? AND record_key = ?");
      for (const [id, expected] of committed) {
        const [conversation, key] = id.split("\u0000") as [string, string];
        expect(text.get(conversation, key), id).toEqual({ text: expected });
      }
      // Exactly once: no text twice in a conversation (a line id with its text is one record).
      const doubled = db
        .prepare(
          "SELECT conversation, text, count(*) AS n FROM recall_records GROUP BY conversation, text HAVING n > 1",
        )
        .all();
      expect(doubled).toEqual([]);
      expect(db.prepare("SELECT count(*) FROM recall_records").pluck().get()).toBe(committed.size);
      // The loop did what it says: files were found cut short or rewritten, brokers were killed.
      expect(db.prepare("SELECT sum(rewritten) FROM recall_source_stats").pluck().get()).toBeGreaterThan(3);
      expect(kills).toBeGreaterThan(2);
      expect(db.prepare("SELECT count(*) FROM recall_documents").pluck().get()).toBe(committed.size);
      expect(
        db
          .prepare("SELECT count(*) FROM recall_records WHERE conversation = ?")
          .pluck()
          .get(`claude:${FORGOTTEN}`),
      ).toBe(0);
    } finally {
      db.close();
    }
    expect(filesHolding(h.recallHome, [Buffer.from(MARK)])).toEqual([]);
  }, 240_000);
});
