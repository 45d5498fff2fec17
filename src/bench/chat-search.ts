import type { ChatSearch } from "../app/attach-chat-search.js";
import { runTool } from "../tools/run.js";
import type { ReadChatOutput } from "../tools/read-chat.js";
import type { SearchChatsOutput } from "../tools/search-chats.js";
import type { Db } from "../store/open.js";
import { planFigures, runClass, type PlanFigures } from "./fidelity.js";
import { distribution, fig, round, timeAsync, type Distribution, type Figure } from "./measure.js";
import type { BenchQuery, QueryClass } from "./queries.js";

export interface ChatClassFigures {
  /** Warm latency of search_chats (impact lists already built by the first pass). */
  latency: Distribution;
  /** The first pass over the same queries, caches empty at its start. */
  firstPass: Distribution;
  /** Rare and mixed classes: share of queries whose planted message is among the results. */
  needleFound?: Figure;
  fidelity: PlanFigures;
}

export interface ChatSearchFigures {
  classes: Partial<Record<QueryClass, ChatClassFigures>>;
  /** read_chat around a search hit (default before/after). */
  readChat: Distribution;
  /**
   * The index-status check every search_chats call makes (indexer isPending: is this app's
   * work queued?), timed on its own: part of every search_chats latency above.
   */
  statusCheck: Distribution;
}

export const SEARCH_CHATS_LIMIT = 8;

const messages = (out: SearchChatsOutput) => out.results.flatMap((r) => r.matches.map((m) => m.message_id));

/** search_chats per query class and read_chat around hits, in embedded mode (one Dyad app). */
export async function benchChatSearch(
  db: Db,
  chat: ChatSearch,
  appId: number,
  queries: Partial<Record<QueryClass, BenchQuery[]>>,
  fidelitySample: number,
): Promise<ChatSearchFigures> {
  const [searchTool, readTool] = chat.tools;
  const search = async (q: BenchQuery) =>
    JSON.parse(
      await runTool(searchTool, { query: q.text, limit: SEARCH_CHATS_LIMIT }, { appId }),
    ) as SearchChatsOutput;
  const classes: Partial<Record<QueryClass, ChatClassFigures>> = {};
  const hits: { chat: number; message: number }[] = [];
  for (const cls of ["rare", "mixed", "common", "identifier"] as const) {
    const list = queries[cls] ?? [];
    if (list.length === 0) continue;
    const run = await runClass(db, list, search);
    const figures: ChatClassFigures = {
      latency: distribution(run.warm),
      firstPass: distribution(run.first),
      fidelity: await planFigures(db, list, run, search, messages, fidelitySample),
    };
    if (cls === "rare" || cls === "mixed") {
      let found = 0;
      run.results.forEach((out, i) => {
        const ref = list[i]!.needle?.ref;
        if (ref && messages(out).includes(Number(ref.messageId))) found++;
      });
      figures.needleFound = fig(round(found / list.length), "share of queries");
    }
    for (const out of run.results) {
      const top = out.results[0];
      if (top?.matches[0]) hits.push({ chat: top.chat_id, message: top.matches[0].message_id });
    }
    classes[cls] = figures;
  }
  const reads: number[] = [];
  for (const h of hits.slice(0, 400)) {
    const { ms } = await timeAsync(
      async () =>
        JSON.parse(
          await runTool(readTool, { chat_id: h.chat, around_message_id: h.message }, { appId }),
        ) as ReadChatOutput,
    );
    reads.push(ms);
  }
  const checks: number[] = [];
  for (let i = 0; i < 50; i++)
    checks.push((await timeAsync(async () => chat.indexer.isPending(appId, null))).ms);
  return { classes, readChat: distribution(reads), statusCheck: distribution(checks) };
}
