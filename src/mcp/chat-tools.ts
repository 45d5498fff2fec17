import type { ChatAppBinding } from "../sources/dyad/apps.js";
import { readCoverage } from "../store/coverage-row.js";
import { openSourceDatabase, type Db } from "../store/open.js";
import type { ChatIndexState } from "../tools/chat-index-state.js";
import type { ToolContext, ToolDefinition } from "../tools/definition.js";
import { createReadChatTool } from "../tools/read-chat.js";
import { createSearchChatsTool } from "../tools/search-chats.js";

/**
 * Standalone search_chats and read_chat for `recall mcp`, bound to one app: the app of a
 * Dyad-shaped database whose folder resolves to the server's project (sources/dyad/apps.ts).
 *
 * - search_chats reads history.db, where the broker's worker indexes the database as the
 *   source `binding.source`: its scope is (source, app id) and the hit's message id is
 *   documents.message. NOT REGISTERED YET: search/chats.ts still scopes by `d.app_id` alone and
 *   takes documents.id as the message id (true only in embedded mode); see the issue report for
 *   the change it needs, after which `recall mcp` adds these tools.
 * - read_chat reads the Dyad database itself, opened read-only, scoped by app id in SQL exactly
 *   as in embedded mode (a deleted chat or message is gone at once).
 */
export interface StandaloneChatTools {
  tools: ToolDefinition[];
  /** The context the chat tools need: the bound app and its source. */
  context: Pick<ToolContext, "appId" | "chatSource">;
  close(): void;
}

/** Indexing runs in the broker: a chat search never waits for it, only reports it. */
export function coverageIndexState(history: Db, source: string): ChatIndexState {
  return {
    waitForIdle: async () => true,
    isPending: () => readCoverage(history, Date.now()).find((c) => c.source === source)?.state === "indexing",
  };
}

export function createStandaloneChatTools(history: Db, binding: ChatAppBinding): StandaloneChatTools {
  const app: Db = openSourceDatabase(binding.file);
  return {
    tools: [
      createSearchChatsTool(history, coverageIndexState(history, binding.source)) as ToolDefinition,
      createReadChatTool(app) as ToolDefinition,
    ],
    context: { appId: binding.appId, chatSource: binding.source },
    close: () => app.close(),
  };
}
