import type { Command } from "commander";
import { createInterface } from "node:readline/promises";
import { RecallError } from "../../core/errors.js";
import { forget, canonicalProjectArg, type ForgetResult, type ForgetScope } from "../../app/forget.js";
import { openIndexToRead, type Db, openIndexToWrite } from "../../app/open-index.js";
import { brokerOrLocal } from "../../app/broker-work.js";
import { TimeBound } from "../../tools/search-history-input.js";
import type { CommandModule } from "../program.js";
import { printJson, counted } from "../output.js";
import { TIME_ARG_HELP, timeArg } from "../time-arg.js";

interface ForgetFlags {
  session?: string;
  project?: string;
  since?: string;
  until?: string;
  yes?: boolean;
  json?: boolean;
}

export function forgetScope(flags: ForgetFlags): ForgetScope {
  const chosen = [
    flags.session !== undefined,
    flags.project !== undefined,
    flags.since !== undefined || flags.until !== undefined,
  ];
  if (chosen.filter(Boolean).length !== 1) {
    throw new RecallError(
      "Usage",
      "give exactly one of --session <id>, --project <path>, or --since <t> --until <t>",
    );
  }
  if (flags.session !== undefined) {
    if (!flags.session.trim()) throw new RecallError("Usage", "--session must not be empty");
    return { session: flags.session.trim() };
  }
  if (flags.project !== undefined) {
    if (!flags.project.trim()) throw new RecallError("Usage", "--project must not be empty");
    return { project: canonicalProjectArg(flags.project.trim()) };
  }
  if (flags.since === undefined || flags.until === undefined) {
    throw new RecallError("Usage", "a time range needs both --since and --until");
  }
  const since = timeFlag("--since", timeArg(flags.since, "since"));
  const until = timeFlag("--until", timeArg(flags.until, "until"));
  if (since > until) throw new RecallError("Usage", "--since must not be after --until");
  return { since, until };
}

/** A time flag, or a Usage error naming it (a flag's mistake exits 2, as every other here). */
function timeFlag(flag: string, value: string): number {
  const parsed = TimeBound.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new RecallError("Usage", `${flag}: ${parsed.error.issues[0]?.message ?? "not a time"}`);
}

class Rollback extends Error {
  constructor(readonly result: ForgetResult) {
    super("preview");
  }
}

/** What forget would delete, without deleting it. */
export function previewForget(db: Db, scope: ForgetScope, now: number): ForgetResult {
  try {
    db.transaction(() => {
      throw new Rollback(forget(db, scope, now));
    })();
  } catch (error) {
    if (error instanceof Rollback) return error.result;
    throw error;
  }
  throw new RecallError("Internal", "forget preview did not run");
}

function describe(result: ForgetResult): string {
  return `${counted(result.documents, "document")}, ${counted(result.records, "retained record")} and ${counted(result.rawChunks, "raw chunk")} (${counted(result.rawBytes, "byte")}) in ${counted(result.conversations, "conversation")}`;
}

/** What happened to the forgotten bytes in recall's files (store/erase.ts). */
function describeErasure(erased: NonNullable<ForgetResult["erased"]>): string {
  const backups =
    erased.backupsRemoved > 0 ? `; ${erased.backupsRemoved} backup files holding earlier copies removed` : "";
  if (erased.vacuumFailed !== undefined)
    return `Removed from the index, but not yet erased from history.db's free pages (${erased.vacuumFailed}); it needs free disk space about twice history.db's size, and the next recall forget that has room erases every page deleted so far${backups}.`;
  return erased.walTruncated
    ? `Erased from history.db and its WAL${backups}.`
    : `Erased from history.db${backups}; another recall process still reads an older snapshot, so history.db-wal keeps earlier pages until every recall process has exited (SQLite removes it then).`;
}

/**
 * `recall forget`: removes history on purpose (a session and its subagents, a project, or a
 * time range) from the index, the retained records and the raw chunks, and leaves a
 * tombstone so a later scan or rebuild does not bring it back.
 */
export const forgetCommand: CommandModule = {
  register(program: Command, ctx) {
    program
      .command("forget")
      .description("delete history on purpose (by session, project or time range) and leave a tombstone")
      .option("--session <id>", "a session id or alias (its subagents go with it)")
      .option("--project <path>", "a canonical project path")
      .option("--since <time>", `${TIME_ARG_HELP} (inclusive)`)
      .option("--until <time>", `${TIME_ARG_HELP} (inclusive)`)
      .option("--yes", "do not ask for confirmation")
      .option("--json", "print what was deleted as JSON")
      .action(async (flags: ForgetFlags) => {
        const scope = forgetScope(flags);
        // Nothing to forget without an index: say so, and do not create one.
        (await openIndexToRead(ctx().home)).close();
        const store = await openIndexToWrite({
          home: ctx().home,
          engine: ctx().forcedEngine,
        });
        try {
          const now = Date.now();
          if (!flags.yes) {
            if (!process.stdin.isTTY) {
              throw new RecallError("Usage", "forget deletes history permanently: confirm with --yes");
            }
            const preview = previewForget(store.db, scope, now);
            const rl = createInterface({ input: process.stdin, output: process.stderr });
            const answer = await rl.question(`Forget ${describe(preview)}? [y/N] `);
            rl.close();
            if (!/^y(es)?$/i.test(answer.trim())) {
              process.stderr.write("nothing deleted\n");
              return;
            }
          }
          // The broker is the index's one writer: ask it, or become it for this write.
          const work = await brokerOrLocal({
            home: ctx().home,
            request: { command: "forget", args: scope },
            busyMessage: "busy: `recall forget` is writing",
            // Erasing rewrites the whole index (VACUUM: about 15 s a GB), in one call without progress.
            timeoutMs: 30 * 60_000,
            local: async () => forget(store.db, scope, now),
          });
          const result = work.result as ForgetResult;
          if (flags.json) printJson({ ...result, by: work.by });
          else process.stdout.write(`Forgot ${describe(result)}; a tombstone keeps them from coming back.\n`);
          if (!flags.json && result.erased) process.stdout.write(`${describeErasure(result.erased)}\n`);
        } finally {
          store.close();
        }
      });
  },
};
