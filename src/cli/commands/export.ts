import type { Command } from "commander";
import { closeSync, openSync, writeSync } from "node:fs";
import { RecallError } from "../../core/errors.js";
import { exportConversation, hasRetained, retainedFiles, type ExportedFile } from "../../indexer/export.js";
import type { Db } from "../../store/open.js";
import type { CommandModule } from "../program.js";
import { openIndexToRead } from "../read-index.js";

interface ExportFlags {
  out?: string;
  file?: string;
  list?: boolean;
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

function openOut(file: string): number {
  try {
    return openSync(file, "w");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new RecallError("Usage", `--out: cannot write ${file} (${code})`);
  }
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
      .argument(
        "<conversation>",
        "conversation id (claude:<session>, codex:<thread>, opencode:<session>) or session id",
      )
      .option("--out <file>", "write to this file instead of stdout")
      .option("--file <path>", "only the bytes retained from this file (see --list)")
      .option("--list", "list the files retained for the conversation (path and bytes), one per line")
      .action(async (given: string, flags: ExportFlags) => {
        if (flags.out !== undefined && flags.out.trim() === "")
          throw new RecallError("Usage", "--out must not be empty");
        if (flags.list && (flags.out !== undefined || flags.file !== undefined))
          throw new RecallError("Usage", "--list takes neither --out nor --file");
        const store = await openIndexToRead(ctx().home);
        try {
          const conversation = resolveConversation(store.db, given);
          if (!conversation)
            throw new RecallError("NotFound", `no retained raw bytes for conversation ${given}`);
          const files = retainedFiles(store.db, conversation);
          if (flags.list) {
            process.stdout.write(files.map((f) => `${f.file}\t${f.bytes}\n`).join(""));
            return;
          }
          if (flags.file !== undefined && !files.some((f) => f.file === flags.file))
            throw new RecallError(
              "NotFound",
              `--file: ${conversation} has no bytes retained from ${flags.file}`,
            );
          const fd = flags.out ? openOut(flags.out) : 1;
          let exported: ExportedFile[];
          try {
            exported = exportConversation(store.db, conversation, (bytes) => writeAll(fd, bytes), flags.file);
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
        } finally {
          store.close();
        }
      });
  },
};
