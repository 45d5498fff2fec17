import type { Command } from "commander";
import { existsSync } from "node:fs";
import path from "node:path";
import { attachChatSearch } from "../../app/attach-chat-search.js";
import { openDatabase } from "../../app/host-database.js";
import { dropLegacy } from "../../app/drop-legacy.js";
import { describeSwitches, splitSwitches } from "../../app/split-switches.js";
import { isRecallError, RecallError } from "../../core/errors.js";
import { EXIT } from "../exit-codes.js";
import { printJson } from "../output.js";
import type { CommandModule } from "../program.js";

/**
 * `recall split`: a host's operator moves its embedded index into history.db now, in the
 * foreground (the same bounded, resumable steps a host runs in the background; run it again
 * after a kill to resume). Exit 0 once switched, 1 when verification failed (said why in one
 * line), 2 for usage and when RECALL_SPLIT=off.
 */
export const splitCommand: CommandModule = {
  register(program: Command) {
    program
      .command("split")
      .description("move a host's embedded chat index out of its database into history.db, verified")
      .option("--db <file>", "the host's SQLite database")
      .option("--to <file>", "history.db's path (default: <db name>.history.db beside it)")
      .option(
        "--drop-legacy",
        "after a verified switch: back up the host's database, then remove recall's legacy tables from it",
      )
      .option("--json", "print JSON")
      .action(async (flags: { db?: string; to?: string; json?: boolean; dropLegacy?: boolean }) => {
        if (!flags.db) throw new RecallError("Usage", "--db is required");
        const file = path.resolve(flags.db);
        if (!existsSync(file)) throw new RecallError("Usage", `--db ${flags.db}: no such file`);
        if (splitSwitches().splitOff)
          throw new RecallError("Usage", `${describeSwitches(splitSwitches())[0]}: unset it to split`);
        if (flags.dropLegacy) return dropLegacyCommand(file, flags);
        const db = openDatabase(file, { keepJournalMode: true });
        try {
          // Brings the embedded index current first (its own backed-up migration), as a host's attach does.
          const search = await attachChatSearch(db, { file, split: { to: flags.to } }).catch(
            (error: unknown) => {
              if (isRecallError(error) && error.kind === "Validation")
                throw new RecallError("Usage", `--db ${flags.db}: ${error.message}`);
              if ((error as { code?: string }).code === "SQLITE_NOTADB")
                throw new RecallError("Usage", `--db ${flags.db}: not an SQLite database`);
              throw error;
            },
          );
          const report = await search.split!;
          await search.close();
          if (flags.json) printJson(report);
          else if (report.status === "switched")
            process.stdout.write(
              `split into ${report.history} (${report.engine}): ${Object.values(report.counts).reduce((a, b) => a + b, 0)} rows ` +
                `in ${Object.keys(report.counts).length} tables verified (row counts and SHA-256) at ${report.verifiedAt}; ` +
                `backup ${report.backup}; readers now read history.db\n`,
            );
          else
            process.stdout.write(
              `split failed verification, readers stay on the legacy tables: ${report.reason}; the copy is kept as ${report.kept}\n`,
            );
          if (report.status === "failed") process.exitCode = EXIT.failure;
        } finally {
          db.close();
        }
      });
  },
};

/** `recall split --drop-legacy`: refused in one line (exit 2) unless the split verified and switched. */
async function dropLegacyCommand(file: string, flags: { to?: string; json?: boolean }): Promise<void> {
  const report = await dropLegacy({ hostFile: file, to: flags.to ? path.resolve(flags.to) : undefined });
  if (flags.json) printJson(report);
  else
    process.stdout.write(
      `removed ${report.dropped.length} legacy tables from ${file}${report.backup ? ` (backup ${report.backup})` : ""}; ` +
        `it keeps ${report.kept.join(", ")}; readers and the indexer use ${report.history}\n`,
    );
}
