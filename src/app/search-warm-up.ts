import { STOPWORDS } from "../search/stopwords.js";
import { mostFrequentStoredWords } from "../store/term-stats.js";
import type { Db } from "../store/open.js";
import type { ToolDefinition } from "../tools/definition.js";
import { runTool } from "../tools/run.js";

/** Stored words the warm-up draws from: enough to pass over stopwords and pick three tiers. */
const WORDS = 60;

/**
 * The searches a fresh process runs before its first request, built from the index's own most
 * frequent words (the broker's persisted term lists): three of the commonest together (their
 * rows seldom meet: the reference plan), two less frequent ones (the impact plan), and a file
 * path of three mid-tier words (an identifier: its tokens are a phrase). The path is what warms
 * an identifier's first call: at 1M Zipf messages, after the other two alone the first call of
 * an identifier took about twice its second (25–35 ms against 13–16), after the path about the
 * same; a path of rarer words costs little and warms nothing, as its hot loops barely run.
 * None when the index has no persisted lists (small or just built): its queries are cheap anyway.
 */
export function warmUpQueries(db: Db): string[] {
  const words = mostFrequentStoredWords(db, WORDS).filter((w) => !STOPWORDS.has(w));
  const queries: string[] = [];
  if (words.length >= 3) queries.push(words.slice(0, 3).join(" "));
  if (words.length > 30) queries.push(`${words[10]} ${words[30]}`);
  if (words.length > 20) queries.push(`${words[18]}/${words[19]}.${words[20]}`);
  return queries;
}

/**
 * Runs search_history on the warm-up queries and drops the answers; nothing is audited or
 * logged, and a failure (an index not ready yet) is ignored. Why: each agent session starts its
 * own `recall mcp`, and its first search ran V8's ranking code uncompiled: at 1M messages a
 * first call took 20–30 ms more than the same query later (issue #32). Run before the server
 * reads its first request, the cost (60–100 ms at 1M) falls in the client's start-up instead.
 * Returns how many searches ran and the milliseconds spent.
 */
export async function warmUpSearch(
  db: Db,
  searchHistory: ToolDefinition,
): Promise<{ searches: number; ms: number }> {
  const started = performance.now();
  const queries = warmUpQueries(db);
  for (const query of queries) {
    try {
      await runTool(searchHistory, { query, limit: 10 }, {});
    } catch {
      // A warm-up that fails warms less; the first real call reports its own error.
    }
  }
  return { searches: queries.length, ms: performance.now() - started };
}
