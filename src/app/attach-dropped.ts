import type { MigrateResult } from "../store/migrate.js";
import { openSplitReader, openSplitTarget } from "../store/history-split.js";
import type { ToolDefinition } from "../tools/definition.js";
import { createReadChatTool } from "../tools/read-chat.js";
import { createSearchChatsTool } from "../tools/search-chats.js";
import type { AttachOptions, ChatSearch } from "./attach-chat-search.js";
import { createChatSearchIndexer } from "./embedded-indexer.js";
import { runSplit } from "./history-split.js";
import { splitSwitches } from "./split-switches.js";

/**
 * Attach to a host whose legacy tables --drop-legacy removed (app/drop-legacy.ts): history.db is
 * the index. The indexer writes it through its own connection (history.db as main, the host's
 * file attached), so its unqualified names find the documents in history.db and the messages,
 * chats and dirty queues (which the host's triggers fill) in the host's file. Readers read
 * history.db whatever RECALL_SPLIT_READ or RECALL_SPLIT say: there is no legacy to go back to
 * (RECALL_INDEXING=paused still pauses the indexer).
 *
 * A drain's transaction writes both files. In WAL mode SQLite commits each file atomically but
 * not the two together: a crash between them can leave a queue entry drained whose document was
 * not written, or one written twice (harmless); the next start's repair does not see the first.
 */
export function attachDropped(
  file: string,
  to: string,
  options: AttachOptions,
  migration: MigrateResult,
): ChatSearch {
  const writer = openSplitTarget(to, file);
  const reader = openSplitReader(to, file);
  const indexer = createChatSearchIndexer(writer, {
    ...options.indexer,
    paused: () => splitSwitches().indexingPaused,
  });
  const tools = [createSearchChatsTool(reader, indexer), createReadChatTool(reader)] as [
    ToolDefinition,
    ToolDefinition,
  ];
  const split =
    options.split && options.split.start !== false
      ? runSplit({ ...options.split.run, hostFile: file, to })
      : null;
  return {
    indexer,
    tools,
    migration,
    split,
    readDb: () => reader,
    async close() {
      await indexer.stop();
      await split?.catch(() => {});
      writer.close();
      reader.close();
    },
  };
}
