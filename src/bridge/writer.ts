import { appendFileSync, existsSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Statement } from "better-sqlite3";
import { RecallError, notFound } from "../core/errors.js";
import { parseInput } from "../core/validation.js";
import { openDatabase, type Db } from "../store/open.js";
import {
  AnswerInput,
  AskInput,
  BindInput,
  DecideInput,
  PostInput,
  RunInput,
  RunMetadata,
  newId,
  type MessageKind,
} from "./records.js";
import { locateRun, metadataName, runName, type RunName } from "./runs.js";
import { ARCHIVE_DDL, BRIDGE_DDL, BRIDGE_SCHEMA_VERSION, bridgePaths, type BridgePaths } from "./schema.js";
import { makePrivateDbFile, makePrivateDir } from "../store/private-files.js";

/**
 * The writer of the bridge store: the one library a broker, a test, the demo or `recall
 * bridge` uses to produce records. It creates the schema (the insert queue and its capture
 * trigger included) on open. recall's indexer never uses it: the bridge source only reads.
 */

export interface PostedMessage {
  id: string;
  rowId: number;
  at: number;
  kind: MessageKind;
  recipients: string[];
}

export interface BridgeWriter {
  readonly paths: BridgePaths;
  /** One live row per message: a broadcast is one row naming every recipient. */
  post(input: PostInput): PostedMessage;
  ask(input: AskInput): { id: string; at: number };
  /** The owner's exact answer; a question is answered once (Conflict otherwise). */
  answer(input: AnswerInput): { question: string; at: number };
  /** A new revision of a topic (rev 1, 2, …); earlier revisions stay. */
  decide(input: DecideInput): { topic: string; rev: number; at: number };
  /** Records a peer binding its CLI session (the indexer turns it into a session alias). */
  bind(input: BindInput): { peer: string; session: string; created: boolean };
  /** Creates `<job>-<UTC start>.log` (with `log` as its first bytes) and its JSON metadata. */
  startRun(input: RunInput): { name: RunName; log: string; metadata: string };
  appendRun(run: string, text: string): void;
  /** Replaces a run's metadata file (written beside, then renamed over it). */
  writeRunMetadata(run: string, metadata: Record<string, unknown>): void;
  /** Moves a run's log and metadata to runs/archive/. */
  archiveRun(run: string): void;
  /** Moves live messages to archive.db (cold); returns how many moved. */
  archiveMessages(ids: readonly string[]): number;
  /** Deletes live messages (delivered and acknowledged); their insert-queue captures stay. */
  deleteMessages(ids: readonly string[]): number;
  /** Drops insert-queue captures up to `seq` (a broker's retention; an indexer behind loses them). */
  pruneCaptures(throughSeq: number): number;
  close(): void;
}

export interface WriterOptions {
  clock?: () => number;
}

const INSERT_MESSAGE = `INSERT INTO messages (id, sender, recipients, kind, body, conversation, project, job, created_at)
  VALUES (@id, @sender, @recipients, @kind, @body, @conversation, @project, @job, @at)`;
const INSERT_QUESTION = `INSERT INTO questions (id, asker, question, conversation, project, job, asked_at)
  VALUES (@id, @asker, @question, @conversation, @project, @job, @at)`;
const QUESTION_EXISTS = `SELECT 1 FROM questions WHERE id = ?`;
/** Messages (live or archived) and questions share one id space: both are `message:<id>` hits. */
const MESSAGE_EXISTS = `SELECT 1 FROM messages WHERE id = ? UNION ALL SELECT 1 FROM cold.messages WHERE id = ?`;
const ANSWER_EXISTS = `SELECT 1 FROM answers WHERE question_id = ?`;
const INSERT_ANSWER = `INSERT INTO answers (question_id, answer, answered_by, answered_at) VALUES (?, ?, ?, ?)`;
const NEXT_REV = `SELECT coalesce(max(rev), 0) + 1 AS rev FROM decisions WHERE topic = ?`;
const INSERT_DECISION = `INSERT INTO decisions (topic, rev, decision, rationale, decided_by, project, job, decided_at)
  VALUES (@topic, @rev, @decision, @rationale, @by, @project, @job, @at)`;
const INSERT_BINDING = `INSERT OR IGNORE INTO bindings (peer, agent, session, project, bound_at) VALUES (?, ?, ?, ?, ?)`;
const COPY_TO_COLD = `INSERT OR IGNORE INTO cold.messages (id, sender, recipients, kind, body, conversation, project,
  job, created_at, archived_at)
  SELECT id, sender, recipients, kind, body, conversation, project, job, created_at, ? FROM main.messages WHERE id = ?`;
const DELETE_LIVE = `DELETE FROM main.messages WHERE id = ?`;
const PRUNE = `DELETE FROM message_inserts WHERE seq <= ?`;

function initialise(file: string, ddl: string): void {
  makePrivateDbFile(file);
  const db = openDatabase(file);
  try {
    db.exec(ddl);
    if ((db.pragma("user_version", { simple: true }) as number) === 0) {
      db.pragma(`user_version = ${BRIDGE_SCHEMA_VERSION}`);
    }
  } finally {
    db.close();
  }
}

export function openBridgeWriter(root: string, options: WriterOptions = {}): BridgeWriter {
  const paths = bridgePaths(path.resolve(root));
  const clock = options.clock ?? Date.now;
  makePrivateDir(paths.runsArchive);
  initialise(paths.archive, ARCHIVE_DDL);
  initialise(paths.db, BRIDGE_DDL);
  const db: Db = openDatabase(paths.db);
  db.prepare("ATTACH DATABASE ? AS cold").run(paths.archive);
  const stmts = new Map<string, Statement>();
  const stmt = (sql: string): Statement => {
    let s = stmts.get(sql);
    if (!s) stmts.set(sql, (s = db.prepare(sql)));
    return s;
  };

  const writer: BridgeWriter = {
    paths,
    post(raw) {
      const input = parseInput(PostInput, raw);
      const at = input.at ?? clock();
      const id = input.id ?? newId("m", at);
      const recipients = [...new Set(input.recipients)];
      if (stmt(QUESTION_EXISTS).get(id))
        throw new RecallError("Conflict", `id ${id} is a question's already`);
      try {
        const info = stmt(INSERT_MESSAGE).run({
          id,
          sender: input.sender,
          recipients: JSON.stringify(recipients),
          kind: input.kind,
          body: input.body,
          conversation: input.conversation ?? null,
          project: input.project ?? null,
          job: input.job ?? null,
          at,
        });
        return { id, rowId: Number(info.lastInsertRowid), at, kind: input.kind, recipients };
      } catch (error) {
        throw duplicate(error, `message ${id}`);
      }
    },
    ask(raw) {
      const input = parseInput(AskInput, raw);
      const at = input.at ?? clock();
      const id = input.id ?? newId("q", at);
      if (stmt(MESSAGE_EXISTS).get(id, id))
        throw new RecallError("Conflict", `id ${id} is a message's already`);
      try {
        stmt(INSERT_QUESTION).run({
          id,
          asker: input.asker,
          question: input.question,
          conversation: input.conversation ?? null,
          project: input.project ?? null,
          job: input.job ?? null,
          at,
        });
      } catch (error) {
        throw duplicate(error, `question ${id}`);
      }
      return { id, at };
    },
    answer(raw) {
      const input = parseInput(AnswerInput, raw);
      const at = input.at ?? clock();
      db.transaction(() => {
        if (!stmt(QUESTION_EXISTS).get(input.question))
          throw notFound(`question ${input.question} not found`);
        if (stmt(ANSWER_EXISTS).get(input.question)) {
          throw new RecallError("Conflict", `question ${input.question} is already answered`);
        }
        stmt(INSERT_ANSWER).run(input.question, input.answer, input.by, at);
      }).immediate();
      return { question: input.question, at };
    },
    decide(raw) {
      const input = parseInput(DecideInput, raw);
      const at = input.at ?? clock();
      const rev = db
        .transaction(() => {
          const { rev } = stmt(NEXT_REV).get(input.topic) as { rev: number };
          stmt(INSERT_DECISION).run({
            topic: input.topic,
            rev,
            decision: input.decision,
            rationale: input.rationale ?? null,
            by: input.by,
            project: input.project ?? null,
            job: input.job ?? null,
            at,
          });
          return rev;
        })
        .immediate();
      return { topic: input.topic, rev, at };
    },
    bind(raw) {
      const input = parseInput(BindInput, raw);
      const info = stmt(INSERT_BINDING).run(
        input.peer,
        input.agent,
        input.session,
        input.project ?? null,
        input.at ?? clock(),
      );
      return { peer: input.peer, session: input.session, created: info.changes > 0 };
    },
    startRun(raw) {
      const input = parseInput(RunInput, raw);
      const name = runName(input.job, input.at ?? clock());
      const metadata = parseInput(RunMetadata, {
        job: input.job,
        jobStartedAt: new Date(name.startedAt ?? Date.now()).toISOString(),
        ...input.metadata,
      });
      const log = path.join(paths.runs, name.log);
      const meta = path.join(paths.runs, metadataName(name));
      if (existsSync(log) || existsSync(path.join(paths.runsArchive, name.log))) {
        throw new RecallError("Conflict", `run ${name.base} already exists`);
      }
      writeFileSync(log, input.log, { flag: "wx", mode: PRIVATE_FILE });
      writeJson(meta, metadata);
      return { name, log, metadata: meta };
    },
    appendRun(run, text) {
      appendFileSync(locateRun(paths.root, run).log, text, { mode: PRIVATE_FILE });
    },
    writeRunMetadata(run, metadata) {
      const where = locateRun(paths.root, run);
      writeJson(where.metadata, parseInput(RunMetadata, metadata));
    },
    archiveRun(run) {
      const where = locateRun(paths.root, run);
      if (where.archived) return;
      const meta = path.join(paths.runsArchive, metadataName(where.name));
      if (existsSync(where.metadata)) renameSync(where.metadata, meta);
      renameSync(where.log, path.join(paths.runsArchive, where.name.log));
    },
    archiveMessages(ids) {
      const at = clock();
      return db
        .transaction(() => {
          let moved = 0;
          for (const id of ids) {
            stmt(COPY_TO_COLD).run(at, id);
            moved += stmt(DELETE_LIVE).run(id).changes;
          }
          return moved;
        })
        .immediate();
    },
    deleteMessages(ids) {
      return db
        .transaction(() => ids.reduce((n, id) => n + stmt(DELETE_LIVE).run(id).changes, 0))
        .immediate();
    },
    pruneCaptures(throughSeq) {
      return stmt(PRUNE).run(throughSeq).changes;
    },
    close() {
      stmts.clear();
      db.close();
    },
  };
  return writer;
}

/**
 * Run logs and their metadata hold what agents ran and printed: like recall's databases they are
 * the user's alone, 0600 whatever the umask (the mode given to a new file is only narrowed by it).
 */
const PRIVATE_FILE = 0o600;

function writeJson(file: string, value: unknown): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`, { mode: PRIVATE_FILE });
  renameSync(tmp, file);
}

function duplicate(error: unknown, what: string): unknown {
  return (error as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE"
    ? new RecallError("Conflict", `${what} already exists`)
    : error;
}
