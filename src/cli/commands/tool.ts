import type { Command } from "commander";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { isRecallError, RecallError } from "../../core/errors.js";
import { attachChatSearch } from "../../app/attach-chat-search.js";
import { hasApp, openDatabase } from "../../app/host-database.js";
import { type Db } from "../../app/open-index.js";
import { runTool, toolErrorOutput } from "../../tools/run.js";
import { EXIT } from "../exit-codes.js";
import type { CommandModule } from "../program.js";

interface ToolFlags {
  db?: string;
  app?: string;
  chat?: string;
  message?: string;
  args?: string;
  attach?: boolean;
}

function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new RecallError("Usage", `${flag} must be a positive integer`);
  return Number(value);
}

/** The tools a host registers (tools/search-chats.ts, tools/read-chat.ts). */
const CHAT_TOOLS = ["search_chats", "read_chat"];

function parseArgs(text: string | undefined): unknown {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RecallError("Usage", "--args must be a JSON object");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new RecallError("Usage", "--args must be a JSON object");
  return value;
}

/**
 * `recall tool` acts as the host: attaches to the chat database (with --attach; else to a
 * private copy of it), brings the index current, runs one tool and prints exactly its output. A tool's own error is printed as
 * {"error":{kind,message}} on stdout with exit 3; usage errors exit 2.
 */
export const toolCommand: CommandModule = {
  register(program: Command) {
    program
      .command("tool")
      .description("run one chat tool against a host's Dyad-shaped database, as the host would")
      .argument("<name>", "search_chats | read_chat")
      .option("--db <file>", "the host's SQLite database")
      .option("--app <id>", "the current app id")
      .option("--chat <id>", "the current chat id")
      .option("--message <id>", "the in-flight message id")
      .option("--args <json>", "the tool's arguments as JSON", "{}")
      .option(
        "--attach",
        "install recall's index in the host's database, as an embedding host does (default: answer from a private read-only copy)",
      )
      .action(async (name: string, flags: ToolFlags) => {
        // Before the host's database is opened.
        if (!CHAT_TOOLS.includes(name))
          throw new RecallError("Usage", `unknown tool "${name}" (${CHAT_TOOLS.join(", ")})`);
        if (!flags.db) throw new RecallError("Usage", "--db is required");
        const file = path.resolve(flags.db);
        if (!existsSync(file)) throw new RecallError("Usage", `--db ${flags.db}: no such file`);
        const appId = positiveInt("--app", flags.app);
        if (appId === undefined) throw new RecallError("Usage", "--app is required");
        const ctx = {
          appId,
          chatId: positiveInt("--chat", flags.chat),
          messageId: positiveInt("--message", flags.message),
        };
        const rawArgs = parseArgs(flags.args);
        const host = openHostDatabase(file, flags.db, { readonly: !flags.attach });
        let copy: { db: Db; file: string; remove: () => void } | undefined;
        try {
          // A database that is not Dyad-shaped, or an app it does not hold, is the caller's mistake,
          // found before anything is written anywhere.
          checkHost(host, appId, flags.db);
          if (!flags.attach) {
            copy = await privateCopy(host);
            process.stderr.write(
              `recall: read-only: answered from a private copy of ${flags.db}; --attach installs recall's index in it\n`,
            );
          }
          await answer(copy ?? { db: host, file }, name, rawArgs, ctx, flags);
        } finally {
          host.close();
          copy?.db.close();
          copy?.remove();
        }
      });
  },
};

/** Attaches as the host would, brings the index current, runs one tool and prints its output. */
async function answer(
  target: { db: Db; file: string },
  name: string,
  rawArgs: unknown,
  ctx: { appId: number; chatId?: number; messageId?: number },
  flags: ToolFlags,
): Promise<void> {
  // A history.db a split switched to is read, as the host reads it; none is started here.
  // A private copy has no history.db beside it: it reads (and catches up) its own tables.
  const split = flags.attach ? { split: { start: false } } : {};
  const chatSearch = await attachChatSearch(target.db, { file: target.file, ...split }).catch(
    (error: unknown) => {
      if (isRecallError(error) && error.kind === "Validation")
        throw new RecallError("Usage", `--db ${flags.db}: ${error.message}`);
      throw error;
    },
  );
  const tool = chatSearch.tools.find((t) => t.name === name)!;
  chatSearch.indexer.start();
  await chatSearch.indexer.drain();
  await chatSearch.indexer.stop();
  try {
    process.stdout.write(`${await runTool(tool, rawArgs, ctx)}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify(toolErrorOutput(error))}\n`);
    process.exitCode = EXIT.toolError;
  }
  await chatSearch.close();
}

function checkHost(db: Db, appId: number, given: string): void {
  let known: boolean;
  try {
    known = hasApp(db, appId);
  } catch (error) {
    if (!/no such table/.test((error as Error).message)) throw error;
    throw new RecallError("Usage", `--db ${given}: not a Dyad-shaped database (no apps table)`);
  }
  if (!known) throw new RecallError("Usage", `--app ${appId}: no such app in ${given}`);
}

/**
 * A consistent copy of the host's database in a private temporary folder (SQLite's online
 * backup, read-only on the host): without --attach, recall's tables, triggers and backups go
 * there, never into someone's real app database. An index the host already holds comes along,
 * so only what is new is indexed.
 */
async function privateCopy(host: Db): Promise<{ db: Db; file: string; remove: () => void }> {
  const dir = mkdtempSync(path.join(tmpdir(), "recall-tool-"));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    const file = path.join(dir, "host.db");
    await host.backup(file);
    return { db: openDatabase(file), file, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** The host's database, or a Usage error naming --db when the file is not an SQLite database. */
function openHostDatabase(file: string, given: string, options: { readonly: boolean }): Db {
  let db: Db | undefined;
  try {
    db = openDatabase(file, { keepJournalMode: true, readonly: options.readonly });
    db.prepare("SELECT count(*) FROM sqlite_master").get();
    return db;
  } catch (error) {
    db?.close();
    const code = (error as { code?: string }).code ?? "";
    if (code === "SQLITE_NOTADB" || code === "SQLITE_CANTOPEN" || code === "EISDIR")
      throw new RecallError("Usage", `--db ${given}: not an SQLite database`);
    throw error;
  }
}
