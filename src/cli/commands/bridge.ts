import type { Command } from "commander";
import { readFileSync, statSync } from "node:fs";
import { bridgeRoot } from "../../app/recall.js";
import {
  MAX_MESSAGE_BYTES,
  RunMetadata,
  openBridgeWriter,
  type BridgeWriter,
} from "../../app/bridge-store.js";
import { RecallError, isRecallError } from "../../core/errors.js";
import { parseInput } from "../../core/validation.js";
import { TimeBound } from "../../tools/search-history-input.js";
import { AgentName } from "../../app/sources.js";
import type { CliContext } from "../context.js";
import { printJson } from "../output.js";
import type { CommandModule } from "../program.js";

/**
 * `recall bridge post | ask | answer | decide | run | bind`: the bridge store's writer on the
 * command line (docs/bridge-store.md). Bad input is one stderr line and exit 2.
 */

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Text from the arguments, or stdin when none (or `-`) is given. */
function textOf(words: string[] | undefined, what: string): string {
  if (words && words.length > 0 && !(words.length === 1 && words[0] === "-")) return words.join(" ");
  if (process.stdin.isTTY) throw new RecallError("Usage", `give the ${what} as arguments or on stdin`);
  const bytes = readFileSync(0);
  if (bytes.length > MAX_MESSAGE_BYTES * 4) throw new RecallError("Usage", `${what} is too long`);
  return bytes.toString("utf8");
}

function withWriter<T>(ctx: () => CliContext, work: (writer: BridgeWriter) => T): T {
  const c = ctx();
  const root = bridgeRoot(c.env, c.config().sources.bridgeDir);
  let writer: BridgeWriter;
  try {
    writer = openBridgeWriter(root);
  } catch (error) {
    // A store folder that cannot be one (a file, no permission, a place no folder can be made):
    // the setting's mistake, named.
    const code = (error as { code?: string }).code;
    if (["ENOTDIR", "EEXIST", "EACCES", "EPERM", "EROFS", "ENOENT"].includes(code ?? ""))
      throw new RecallError(
        "Usage",
        `bridge store ${root}: cannot be created or opened (${code}); check RECALL_BRIDGE_DIR or sources.bridgeDir`,
      );
    throw error;
  }
  try {
    return work(writer);
  } catch (error) {
    // A record the store refuses is the caller's input: usage (exit 2), one line.
    if (isRecallError(error) && (error.kind === "Validation" || error.kind === "Conflict")) {
      throw new RecallError("Usage", error.message);
    }
    throw error;
  } finally {
    writer.close();
  }
}

function report(json: boolean | undefined, value: Record<string, unknown>, line: string): void {
  if (json) printJson(value);
  else process.stdout.write(`${line}\n`);
}

/**
 * `key=value` pairs of --meta. A value that parses as JSON keeps its type, unless the key is a
 * known metadata field that takes text only: `title=2026` is the title "2026", not a number the
 * reader would refuse.
 */
function metaPairs(pairs: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const known = RunMetadata.shape as Record<string, { safeParse(v: unknown): { success: boolean } }>;
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new RecallError("Usage", `--meta wants key=value, not "${pair}"`);
    const key = pair.slice(0, eq);
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // a plain string
    }
    const field = Object.hasOwn(known, key) ? known[key] : undefined;
    if (field && !field.safeParse(value).success) value = raw;
    out[key] = value;
  }
  return out;
}

interface Common {
  conversation?: string;
  project?: string;
  job?: string;
  id?: string;
  json?: boolean;
}

export const bridgeCommand: CommandModule = {
  register(program: Command, ctx) {
    const bridge = program
      .command("bridge")
      .description("write agent-bridge records: post, ask, answer, decide, run, bind")
      .argument("[verb]")
      .action((verb: string | undefined) => {
        throw new RecallError(
          "Usage",
          verb === undefined
            ? "recall bridge needs a verb: post, ask, answer, decide, run or bind"
            : `unknown bridge verb '${verb}': use post, ask, answer, decide, run or bind`,
        );
      });

    bridge
      .command("post")
      .description("post a message (several --to: one broadcast message)")
      .argument("[text...]", "message body (stdin when omitted or -)")
      .requiredOption("--from <peer>", "sender identity")
      .option("--to <peer>", "a recipient (repeat for a broadcast)", collect)
      .option("--kind <kind>", "message | approval | progress | report", "message")
      .option("--conversation <name>", "conversation the message belongs to")
      .option("--project <path>", "project path")
      .option("--job <name>", "job the message is about")
      .option("--id <id>", "message id (generated when omitted)")
      .option("--json", "print the record as JSON")
      .action((words: string[], flags: Common & { from: string; to?: string[]; kind: string }) => {
        if (!flags.to || flags.to.length === 0)
          throw new RecallError("Usage", "give at least one --to <peer>");
        const body = textOf(words, "message body");
        const posted = withWriter(ctx, (w) =>
          w.post({
            sender: flags.from,
            recipients: flags.to!,
            kind: flags.kind as "message",
            body,
            ...optional(flags),
          }),
        );
        report(flags.json, { ...posted }, `message ${posted.id}`);
      });

    bridge
      .command("ask")
      .description("ask the owner a question")
      .argument("[text...]", "the question (stdin when omitted or -)")
      .requiredOption("--from <peer>", "who asks")
      .option("--conversation <name>", "conversation the question belongs to")
      .option("--project <path>", "project path")
      .option("--job <name>", "job the question is about")
      .option("--id <id>", "question id (generated when omitted)")
      .option("--json", "print the record as JSON")
      .action((words: string[], flags: Common & { from: string }) => {
        const question = textOf(words, "question");
        const asked = withWriter(ctx, (w) => w.ask({ asker: flags.from, question, ...optional(flags) }));
        report(flags.json, asked, `question ${asked.id}`);
      });

    bridge
      .command("answer")
      .description("answer a question, exactly as given")
      .argument("<question>", "question id")
      .argument("[text...]", "the answer (stdin when omitted or -)")
      .option("--by <peer>", "who answers", "owner")
      .option("--json", "print the record as JSON")
      .action((question: string, words: string[], flags: { by: string; json?: boolean }) => {
        const answer = textOf(words, "answer");
        const answered = withWriter(ctx, (w) => w.answer({ question, answer, by: flags.by }));
        report(flags.json, answered, `answered ${answered.question}`);
      });

    bridge
      .command("decide")
      .description("record a new revision of a decision topic")
      .argument("<topic>", "decision topic (letters, digits, . _ -)")
      .argument("[text...]", "the decision (stdin when omitted or -)")
      .requiredOption("--by <peer>", "who decided")
      .option("--rationale <text>", "why")
      .option("--project <path>", "project path")
      .option("--job <name>", "job the decision belongs to")
      .option("--json", "print the record as JSON")
      .action((topic: string, words: string[], flags: Common & { by: string; rationale?: string }) => {
        const decision = textOf(words, "decision");
        const decided = withWriter(ctx, (w) =>
          w.decide({
            topic,
            decision,
            by: flags.by,
            ...(flags.rationale !== undefined ? { rationale: flags.rationale } : {}),
            ...(flags.project !== undefined ? { project: flags.project } : {}),
            ...(flags.job !== undefined ? { job: flags.job } : {}),
          }),
        );
        report(flags.json, decided, `decision ${decided.topic}@${decided.rev}`);
      });

    bridge
      .command("run")
      .description("start a run log <job>-<UTC start>.log with its metadata, or --append to one")
      .option("--job <name>", "job name (starts a new run)")
      .option("--started <time>", "run start: epoch ms or ISO 8601 with timezone (default now)")
      .option("--session <id>", "CLI session the run executes in (links its transcript to the job)")
      .option("--agent <name>", AgentName.options.join(" | "))
      .option("--project <path>", "project path")
      .option("--meta <key=value>", "another metadata field (repeatable)", collect)
      .option("--log-file <path>", "initial log content from a file (else stdin when piped)")
      .option("--append <run>", "append stdin or --log-file to an existing run instead")
      .option("--archive <run>", "move a run to runs/archive/")
      .option("--json", "print the record as JSON")
      .action(
        (flags: {
          job?: string;
          started?: string;
          session?: string;
          agent?: string;
          project?: string;
          meta?: string[];
          logFile?: string;
          append?: string;
          archive?: string;
          json?: boolean;
        }) => {
          const chosen = [flags.job, flags.append, flags.archive].filter((v) => v !== undefined).length;
          if (chosen !== 1)
            throw new RecallError("Usage", "give exactly one of --job, --append <run>, --archive <run>");
          if (flags.archive !== undefined) {
            withWriter(ctx, (w) => w.archiveRun(flags.archive!));
            report(flags.json, { run: flags.archive, archived: true }, `archived ${flags.archive}`);
            return;
          }
          const log = logInput(flags.logFile);
          if (flags.append !== undefined) {
            withWriter(ctx, (w) => w.appendRun(flags.append!, log));
            report(
              flags.json,
              { run: flags.append, appended: Buffer.byteLength(log) },
              `appended ${flags.append}`,
            );
            return;
          }
          const metadata: Record<string, unknown> = metaPairs(flags.meta ?? []);
          if (flags.session !== undefined) metadata.session = flags.session;
          if (flags.agent !== undefined) metadata.agent = flags.agent;
          if (flags.project !== undefined) metadata.project = flags.project;
          let at: number | undefined;
          if (flags.started !== undefined) {
            try {
              at = parseInput(TimeBound, flags.started);
            } catch {
              throw new RecallError("Usage", "--started must be epoch ms or ISO 8601 with a timezone");
            }
          }
          const run = withWriter(ctx, (w) =>
            w.startRun({ job: flags.job!, log, metadata, ...(at !== undefined ? { at } : {}) }),
          );
          report(
            flags.json,
            { run: run.name.log, log: run.log, metadata: run.metadata },
            `run ${run.name.log}`,
          );
        },
      );

    bridge
      .command("bind")
      .description("record a peer binding its CLI session (a session alias for search)")
      .requiredOption("--peer <id>", "peer identity")
      .requiredOption("--session <id>", "the CLI session id")
      .option("--agent <name>", AgentName.options.join(" | "), "other")
      .option("--project <path>", "project path")
      .option("--json", "print the record as JSON")
      .action((flags: { peer: string; session: string; agent: string; project?: string; json?: boolean }) => {
        const bound = withWriter(ctx, (w) =>
          w.bind({
            peer: flags.peer,
            session: flags.session,
            agent: flags.agent as "other",
            ...(flags.project !== undefined ? { project: flags.project } : {}),
          }),
        );
        report(flags.json, bound, `bound ${bound.peer} to ${bound.session}`);
      });
  },
};

function optional(flags: Common): { conversation?: string; project?: string; job?: string; id?: string } {
  return {
    ...(flags.conversation !== undefined ? { conversation: flags.conversation } : {}),
    ...(flags.project !== undefined ? { project: flags.project } : {}),
    ...(flags.job !== undefined ? { job: flags.job } : {}),
    ...(flags.id !== undefined ? { id: flags.id } : {}),
  };
}

/** Log bytes from --log-file, else from piped stdin, else nothing. */
function logInput(file: string | undefined): string {
  if (file !== undefined) {
    let stat;
    try {
      stat = statSync(file);
    } catch {
      throw new RecallError("Usage", `cannot read --log-file ${file}`);
    }
    if (!stat.isFile()) throw new RecallError("Usage", `--log-file ${file} is not a file`);
    if (stat.size > 64 * 1024 * 1024) throw new RecallError("Usage", "--log-file is over 64 MiB");
    return readFileSync(file, "utf8");
  }
  return process.stdin.isTTY ? "" : readFileSync(0, "utf8");
}
