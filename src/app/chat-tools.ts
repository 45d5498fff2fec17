import { RecallError } from "../core/errors.js";
import type { ChatAppBinding } from "../sources/dyad/apps.js";
import { readCoverage } from "../store/coverage-row.js";
import { openSourceDatabase, type Db } from "../store/open.js";
import type { ChatIndexState } from "../tools/chat-index-state.js";
import type { ToolDefinition } from "../tools/definition.js";
import { createReadChatTool } from "../tools/read-chat.js";
import { createSearchChatsTool } from "../tools/search-chats.js";

/**
 * Standalone search_chats and read_chat for `recall mcp`, bound to one app: the app of a
 * Dyad-shaped database whose folder resolves to the server's project (sources/dyad/apps.ts).
 *
 * - search_chats reads history.db, where the broker's worker indexes the database as the source
 *   `binding.source`: its scope is (source, app id) in SQL, and hits carry documents.message.
 * - read_chat reads the Dyad database itself, opened read-only, scoped by app id in SQL exactly
 *   as in embedded mode (a deleted chat or message is gone at once).
 *
 * The binding is looked up on a call until one is found (an app may be created after the
 * server starts); without one the tools are still listed and answer with a clear error.
 */
export interface StandaloneChatTools {
  tools: ToolDefinition[];
  /** The indexed Dyad source the tools are bound to, once a call bound them (chat ids live in it). */
  chatSource(): string | null;
  close(): void;
}

/** How long an unsuccessful binding lookup is remembered before the next call tries again. */
const REBIND_MS = 5000;

/** Indexing runs in the broker: a chat search never waits for it, only reports it. */
export function coverageIndexState(history: Db, source: string): ChatIndexState {
  return {
    waitForIdle: async () => true,
    // Not yet in the coverage (its first poll has not run) or stale counts as pending: "ready"
    // with no results would read as "nothing there". "incomplete" is caught up with what it can read.
    isPending: () => {
      const state = readCoverage(history, Date.now()).find((c) => c.source === source)?.state;
      return state !== "ready" && state !== "incomplete";
    },
  };
}

interface Bound {
  binding: ChatAppBinding;
  searchChats: ToolDefinition;
  readChat: ToolDefinition;
  app: Db;
}

export function createStandaloneChatTools(
  history: Db,
  resolveBinding: () => ChatAppBinding | null,
): StandaloneChatTools {
  let bound: Bound | null = null;
  let missUntil = 0;
  const bind = (tool: string): Bound => {
    if (bound) return bound;
    const binding = Date.now() < missUntil ? null : resolveBinding();
    if (!binding) {
      missUntil = Date.now() + REBIND_MS;
      throw new RecallError(
        "Unavailable",
        `${tool}: no single Dyad app's folder holds this server's working directory or resolves to its project; ` +
          "search_history searches every project",
      );
    }
    const app = openSourceDatabase(binding.file);
    bound = {
      binding,
      app,
      searchChats: createSearchChatsTool(history, coverageIndexState(history, binding.source)),
      readChat: createReadChatTool(app),
    };
    return bound;
  };
  // The listed definitions come from the real tools (schemas, descriptions), bound per call.
  const template = {
    searchChats: createSearchChatsTool(history, coverageIndexState(history, "")) as ToolDefinition,
    readChat: createReadChatTool(history) as ToolDefinition,
  };
  const boundTool = (def: ToolDefinition, pick: (b: Bound) => ToolDefinition): ToolDefinition => ({
    ...def,
    async execute(args, ctx) {
      const b = bind(def.name);
      return pick(b).execute(args, { ...ctx, appId: b.binding.appId, chatSource: b.binding.source });
    },
  });
  return {
    tools: [
      boundTool(template.searchChats, (b) => b.searchChats),
      boundTool(template.readChat, (b) => b.readChat),
    ],
    chatSource: () => bound?.binding.source ?? null,
    close: () => bound?.app.close(),
  };
}
