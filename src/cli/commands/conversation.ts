import type { Command } from "commander";
import { auditCall } from "../../audit/audit-log.js";
import { RecallError } from "../../core/errors.js";
import { parseInput } from "../../core/validation.js";
import { PROJECTION_VERSION } from "../../projection/index.js";
import { openHistoryStore } from "../../store/history-store.js";
import { GetConversationInput, readConversationPage } from "../../tools/get-conversation.js";
import type { CommandModule } from "../program.js";
import { printJson } from "../output.js";

interface ConversationFlags {
  after?: string;
  limit?: string;
  json?: boolean;
}

/** `recall conversation <id>`: one get_conversation page; --json prints exactly the tool's output. */
export const conversationCommand: CommandModule = {
  register(program: Command, ctx) {
    program
      .command("conversation")
      .description("read a retained conversation page by page (a conversation id or a hit id)")
      .argument("<id>", "hit.conversation from a search, or a hit id")
      .option("--after <cursor>", "the `next` cursor of the previous page")
      .option("--limit <n>", "records per page, 1..100, default 20")
      .option("--json", "print the get_conversation tool's JSON")
      .action(async (id: string, flags: ConversationFlags) => {
        if (flags.limit !== undefined && !/^\d+$/.test(flags.limit)) {
          throw new RecallError("Usage", `--limit must be a whole number, not "${flags.limit}"`);
        }
        const args = parseInput(GetConversationInput, {
          id,
          after: flags.after,
          limit: flags.limit === undefined ? undefined : Number(flags.limit),
        });
        const store = await openHistoryStore({
          home: ctx().home,
          projectionVersion: PROJECTION_VERSION,
          readonly: true,
        });
        try {
          const started = performance.now();
          const page = readConversationPage(store.db, args);
          auditCall(
            ctx().home,
            "cli",
            "get_conversation",
            performance.now() - started,
            JSON.stringify(page),
            args,
          );
          if (flags.json) return printJson(page);
          for (const record of page.records) {
            const when = new Date(record.at).toISOString().replace("T", " ").slice(0, 19);
            process.stdout.write(
              `[${when}] ${record.role}${record.truncated ? " (truncated)" : ""}\n${record.text}\n\n`,
            );
          }
          if (page.next) process.stdout.write(`more: recall conversation ${id} --after ${page.next}\n`);
        } finally {
          store.close();
        }
      });
  },
};
