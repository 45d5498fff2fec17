import type { Command } from "commander";
import { closeSync, writeSync } from "node:fs";
import { RecallError } from "../../core/errors.js";
import {
  earlierVersions,
  exportConversation,
  hasRetained,
  retainedFiles,
  type ExportedFile,
} from "../../app/export.js";
import { openIndexToRead, type Db } from "../../app/open-index.js";
import { compileRedaction } from "../../app/redaction.js";
import { conversationIds, SOURCES } from "../../app/sources.js";
import type { CliContext } from "../context.js";
import type { CommandModule } from "../program.js";
import { openExportTarget } from "../export-target.js";
import { redactingWriter } from "../redacting-writer.js";
import { counted, printJson } from "../output.js";

interface ExportFlags {
  out?: string;
  file?: string;
  list?: boolean;
  epoch?: string;
  force?: boolean;
  redact?: boolean;
  json?: boolean;
}

/** A conversation id as given, or the main conversation of a session id (`claude:<id>`, `codex:<id>`...). */
export function resolveConversation(db: Db, given: string): string | null {
  if (hasRetained(db, given)) return given;
  const rows = db
    .prepare("SELECT id FROM recall_conversations WHERE session = ? AND parent IS NULL ORDER BY id LIMIT 2")
    .all(given) as { id: string }[];
  if (rows.length === 1 && hasRetained(db, rows[0]!.id)) return rows[0]!.id;
  return null;
}

/**
 * Writes every byte, waiting out a full pipe: Node makes a piped stdout non-blocking, so a slow
 * reader (`recall export … | gzip`) gets EAGAIN from a plain write loop.
 */
function writeAll(fd: number, bytes: Buffer): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let written = 0;
  while (written < bytes.length) {
    try {
      written += writeSync(fd, bytes, written, bytes.length - written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      Atomics.wait(pause, 0, 0, 2);
    }
  }
}

/** The --out file, opened as export-target.ts allows (config.json's bridge folder included when valid). */
function openOut(file: string, force: boolean, ctx: () => CliContext): number {
  const { env, home } = ctx();
  let bridgeDir: string | undefined;
  try {
    bridgeDir = ctx().config().sources.bridgeDir;
  } catch {
    // An invalid config.json: the default bridge folder is still protected.
  }
  return openExportTarget(file, { env, home, force, ...(bridgeDir ? { bridgeDir } : {}) });
}

/** Flags that contradict each other, refused before the index is opened. */
function checkFlagCombinations(flags: ExportFlags): void {
  if (flags.out !== undefined && flags.out.trim() === "")
    throw new RecallError("Usage", "--out must not be empty");
  if (flags.list && (flags.out !== undefined || flags.file !== undefined))
    throw new RecallError("Usage", "--list takes neither --out nor --file");
  // To stdout the export is the raw bytes themselves: there is nothing to say as JSON.
  if (flags.json && !flags.list && flags.out === undefined)
    throw new RecallError("Usage", "--json needs --list or --out (to stdout the export is the raw bytes)");
}

/** The --epoch asked for (undefined: the current bytes), once --file and --epoch name what is retained. */
function chosenVersion(
  flags: ExportFlags,
  conversation: string,
  files: { file: string }[],
  earlier: { file: string; epoch: number }[],
): number | undefined {
  const epoch = flags.epoch === undefined ? undefined : Number(flags.epoch);
  if (epoch !== undefined && (flags.file === undefined || !Number.isInteger(epoch)))
    throw new RecallError("Usage", "--epoch takes an integer and needs --file (see --list)");
  if (epoch !== undefined && !earlier.some((v) => v.file === flags.file && v.epoch === epoch))
    throw new RecallError("NotFound", `--epoch: no earlier version ${epoch} of ${flags.file} is retained`);
  if (flags.file !== undefined && !files.some((f) => f.file === flags.file))
    throw new RecallError("NotFound", `--file: ${conversation} has no bytes retained from ${flags.file}`);
  return epoch;
}

/** `--list`: the retained files and their earlier versions, as lines or as JSON. */
function printList(
  conversation: string,
  files: { file: string; bytes: number }[],
  earlier: { file: string; bytes: number; epoch: number }[],
  json: boolean,
): void {
  if (json)
    return printJson({
      conversation,
      files: files.map((f) => ({ file: f.file, bytes: f.bytes })),
      earlier: earlier.map((v) => ({ file: v.file, bytes: v.bytes, epoch: v.epoch })),
    });
  process.stdout.write(files.map((f) => `${f.file}\t${f.bytes}\n`).join(""));
  process.stdout.write(earlier.map((v) => `${v.file}\t${v.bytes}\tepoch ${v.epoch}\n`).join(""));
}

/** With --out stdout is free: say what was written where (the bytes as read from the index). */
function reportWritten(out: string, conversation: string, files: ExportedFile[], json: boolean): void {
  const bytes = files.reduce((sum, f) => sum + f.bytes, 0);
  if (json)
    return printJson({
      conversation,
      out,
      bytes,
      files: files.map((f) => ({ file: f.file, bytes: f.bytes })),
    });
  process.stdout.write(
    `wrote ${counted(bytes, "byte")} of ${conversation} (${counted(files.length, "file")}) to ${out}\n`,
  );
}

/**
 * `recall export <conversation>`: the retained raw bytes of a conversation, verbatim, in
 * file and offset order, to stdout or --out. A transcript the CLI has since deleted comes
 * back byte for byte; `--list` names the files, `--file` picks one.
 */
export const exportCommand: CommandModule = {
  register(program: Command, ctx) {
    program
      .command("export")
      .description("write a conversation's retained raw bytes back verbatim (to stdout or --out)")
      .argument("<conversation>", `conversation id (${conversationIds(SOURCES)}) or session id`)
      .option(
        "--out <file>",
        "write to this new file (0600) instead of stdout; never inside RECALL_HOME or a source's folders",
      )
      .option("--force", "with --out: overwrite the file when it exists")
      .option("--file <path>", "only the bytes retained from this file (see --list)")
      .option(
        "--redact",
        "write a copy with secrets replaced by [redacted:<detector>] (README: Secrets); without it the bytes are exact",
      )
      .option("--list", "list the files retained for the conversation (path and bytes), one per line")
      .option("--json", "with --list or --out: print what was listed or written as JSON")
      .option(
        "--epoch <n>",
        "with --file: an earlier version of a file that was truncated or rewritten (see --list)",
      )
      .action(async (given: string, flags: ExportFlags) => {
        checkFlagCombinations(flags);
        const store = await openIndexToRead(ctx().home);
        try {
          const conversation = resolveConversation(store.db, given);
          if (!conversation)
            throw new RecallError("NotFound", `no retained raw bytes for conversation ${given}`);
          const files = retainedFiles(store.db, conversation);
          // A file the CLI truncated or rewrote keeps its earlier versions: listed with their epoch.
          const earlier = earlierVersions(store.db, conversation);
          if (flags.list) return printList(conversation, files, earlier, flags.json === true);
          const epoch = chosenVersion(flags, conversation, files, earlier);
          const fd = flags.out ? openOut(flags.out, flags.force === true, ctx) : 1;
          let exported: ExportedFile[];
          try {
            const exact = (bytes: Buffer) => writeAll(fd, bytes);
            // Asked for explicitly: config.json's patterns and allow-list apply even when it turned redaction off.
            const redacted = flags.redact
              ? redactingWriter(compileRedaction({ ...ctx().config().redaction, enabled: true }), exact)
              : null;
            exported = exportConversation(
              store.db,
              conversation,
              redacted?.write ?? exact,
              flags.file,
              epoch,
            );
            redacted?.end();
          } finally {
            if (flags.out) closeSync(fd);
          }
          const partial = exported.filter((f) => !f.complete);
          if (partial.length > 0) {
            // Written as retained, but never passed off as the whole file.
            throw new RecallError(
              "Internal",
              `incomplete export: raw bytes of ${partial.map((f) => f.file).join(", ")} were pruned by retention.rawMaxBytesPerSource`,
            );
          }
          if (flags.out) reportWritten(flags.out, conversation, exported, flags.json === true);
        } finally {
          store.close();
        }
      });
  },
};
