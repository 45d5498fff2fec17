import type { Command } from "commander";
import { auditCall } from "../../app/audit.js";
import { conversationById, isWellFormedHitId } from "../../app/reads.js";
import { RecallError } from "../../core/errors.js";
import { parseInput } from "../../core/validation.js";
import { readConversation, type ConversationWindow } from "../../tools/conversation-window.js";
import { GetConversationInput, type GetConversationOutput } from "../../tools/get-conversation.js";
import type { CommandModule } from "../program.js";
import { openIndexToRead } from "../../app/open-index.js";
import { printJson } from "../output.js";
import { isoInstant } from "../../core/instant.js";
import { namingFlags } from "../flag-errors.js";

interface ConversationFlags {
  after?: string;
  before?: string;
  around?: string;
  limit?: string;
  includeContext?: boolean;
  json?: boolean;
}

/** get_conversation's input fields as this command's flags name them. */
const CONVERSATION_FLAG_NAMES = {
  id: "<id>",
  after: "--after",
  before: "--before",
  around: "--around",
  limit: "--limit",
  include_context: "--include-context",
};

/**
 * `recall conversation <id>`: one page of a retained conversation. A conversation id starts at
 * its beginning, as get_conversation does; a hit id opens the page around that hit, as the
 * dashboard does (tools/conversation-window.ts), since that is the record a search pointed at.
 * --json prints get_conversation's output, with `prev` (and `focus`) when the page was opened
 * around a hit or before a cursor. Injected context records are left out unless
 * --include-context is given, as get_conversation leaves them out unless include_context is true.
 */
export const conversationCommand: CommandModule = {
  register(program: Command, ctx) {
    program
      .command("conversation")
      .description(
        "read a retained conversation page by page (a conversation id, or a hit id: opened at that hit)",
      )
      .argument("<id>", "hit.conversation from a search, or a hit id")
      .option("--after <cursor>", "the `next` cursor of a page: the records after it")
      .option("--before <cursor>", "the `prev` cursor of a page: the records before it")
      .option(
        "--around <hit>",
        "open the page around this hit of the conversation (the default for a hit id)",
      )
      .option("--limit <n>", "records per page, 1..100, default 20")
      .option(
        "--include-context",
        "also show injected context records (environment, model, tool and skill listings)",
      )
      .option("--json", "print the page as get_conversation's JSON")
      .action(
        namingFlags(CONVERSATION_FLAG_NAMES, async (id: string, flags: ConversationFlags) => {
          if (flags.limit !== undefined && !/^\d+$/.test(flags.limit)) {
            throw new RecallError(
              "Usage",
              `--limit must be a whole number from 1 to 100, not "${flags.limit}"`,
            );
          }
          const given = (["after", "before", "around"] as const).filter((k) => flags[k] !== undefined);
          if (given.length > 1) {
            throw new RecallError("Usage", `${given.map((k) => `--${k}`).join(", ")}: use only one of them`);
          }
          if (flags.around !== undefined && !isWellFormedHitId(flags.around)) {
            throw new RecallError("Usage", `--around: not a hit id (<kind>:<source id>): "${flags.around}"`);
          }
          const args = parseInput(GetConversationInput, {
            id,
            after: flags.after,
            before: flags.before,
            around: flags.around,
            limit: flags.limit === undefined ? undefined : Number(flags.limit),
            include_context: flags.includeContext === true,
          });
          const store = await openIndexToRead(ctx().home);
          try {
            const started = performance.now();
            // A hit id alone opens its conversation at the hit.
            const around =
              args.around ??
              (given.length === 0 && !conversationById(store.db, args.id) ? args.id : undefined);
            const page: GetConversationOutput & Partial<ConversationWindow> = readConversation(store.db, {
              ...args,
              around,
            });
            auditCall(
              ctx().home,
              "cli",
              "get_conversation",
              performance.now() - started,
              JSON.stringify(page),
              args,
            );
            if (flags.json) return printJson(page);
            // The hints page the same view: context records stay shown when they were.
            const same = args.include_context ? " --include-context" : "";
            if (page.prev)
              process.stdout.write(`earlier: recall conversation ${id} --before ${page.prev}${same}\n\n`);
            for (const record of page.records) {
              const when = (isoInstant(record.at) ?? "?").replace("T", " ").slice(0, 19);
              const hit = record.id === page.focus ? "  ← the hit" : "";
              process.stdout.write(
                `[${when}] ${record.role}${record.truncated ? " (truncated)" : ""}${hit}\n${record.text}\n\n`,
              );
            }
            // An empty page (past the end, or every record forgotten) says so rather than print nothing.
            if (page.records.length === 0) process.stdout.write("no records on this page\n");
            if (page.next)
              process.stdout.write(`more: recall conversation ${id} --after ${page.next}${same}\n`);
          } finally {
            store.close();
          }
        }),
      );
  },
};
