import path from "node:path";
import { openSplitReader } from "../store/history-split.js";
import type { Db } from "../store/open.js";
import type { ChatIndexState } from "../tools/chat-index-state.js";
import type { ToolDefinition } from "../tools/definition.js";
import { createReadChatTool } from "../tools/read-chat.js";
import { createSearchChatsTool } from "../tools/search-chats.js";
import {
  createForwarder,
  defaultHistoryFile,
  isSwitched,
  runSplit,
  SPLIT_DEFAULTS,
  type SplitOptions,
  type SplitReport,
} from "./history-split.js";
import { splitSwitches, type SplitSwitches } from "./split-switches.js";

export interface SplitAttachOptions {
  /** history.db's path (default: defaultHistoryFile). */
  to?: string;
  /** Run the split in the background (default true): one already switched just reports its figures. */
  start?: boolean;
  /** Passed on to runSplit (tests). */
  run?: Pick<SplitOptions, "maxRows" | "maxMs" | "onStep" | "backupDir" | "probe">;
  switches?: () => SplitSwitches;
}

/**
 * Where an embedded index's readers read: the legacy tables in the host's database until a
 * split's verification has passed and it switched, history.db after (unless a kill switch says
 * otherwise, asked at every call). The indexer keeps writing the legacy tables; after the switch
 * each drain ends by forwarding the log into history.db, and a reader forwards what is left first
 * (one bounded step: a message the host deleted leaves history.db before the next search).
 */
export interface SplitRouting {
  /** The database a reader reads now. */
  readDb(): Db;
  route(legacy: readonly ToolDefinition[]): ToolDefinition[];
  afterDrain(): Promise<void>;
  paused(): boolean;
  /** The background split, when one was started; resolves with its report. */
  split: Promise<SplitReport> | null;
  close(): void;
}

const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createSplitRouting(
  hostDb: Db,
  hostFile: string,
  options: SplitAttachOptions,
  index: ChatIndexState,
): SplitRouting {
  const to = path.resolve(options.to ?? defaultHistoryFile(hostFile));
  const switches = options.switches ?? (() => splitSwitches());
  let switched = isSwitched(to);
  let reader: Db | null = null;
  let tools: Map<string, ToolDefinition> | null = null;
  const forwarder = createForwarder(hostFile, to);

  const useHistory = () => {
    const s = switches();
    return switched && !s.splitOff && !s.readLegacy;
  };
  const historyTools = () => {
    reader ??= openSplitReader(to, hostFile);
    tools ??= new Map(
      [createSearchChatsTool(reader, index), createReadChatTool(reader)].map((t) => [
        t.name,
        t as ToolDefinition,
      ]),
    );
    return tools;
  };

  const split =
    options.start !== false && !switches().splitOff
      ? runSplit({ ...options.run, hostFile, to, switches }).then((report) => {
          switched = report.status === "switched";
          return report;
        })
      : null;

  return {
    readDb: () => (useHistory() ? (reader ??= openSplitReader(to, hostFile)) : hostDb),
    route: (legacy) =>
      legacy.map((tool) => ({
        ...tool,
        execute: (args, ctx) => {
          if (!useHistory()) return tool.execute(args, ctx);
          forwarder.step(SPLIT_DEFAULTS.maxRows, false);
          return historyTools().get(tool.name)!.execute(args, ctx);
        },
      })),
    async afterDrain() {
      if (!switched || switches().splitOff) return;
      while (forwarder.step(SPLIT_DEFAULTS.maxRows) > 0) await yieldNow();
    },
    paused: () => switches().indexingPaused,
    split,
    close() {
      forwarder.close();
      reader?.close();
      reader = null;
      tools = null;
    },
  };
}
