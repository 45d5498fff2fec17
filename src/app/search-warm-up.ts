import { STOPWORDS } from "../search/stopwords.js";
import { mostFrequentStoredWords } from "../store/term-stats.js";
import type { Db } from "../store/open.js";

/** Stored words the warm-up draws from: enough to pass over stopwords and pick three tiers. */
const WORDS = 60;

/**
 * The searches a fresh `recall mcp` rehearses before its first request (mcp/rehearsal.ts), built
 * from the index's own most frequent words (the broker's persisted term lists): three of the
 * commonest together (their rows seldom meet: the reference plan), two less frequent ones (the
 * impact plan), and a file path of three mid-tier words (an identifier: its tokens are a
 * phrase). The path is what warms an identifier's first call: at 1M Zipf messages, after the
 * other two alone the first call of an identifier took about twice its second (25–35 ms against
 * 13–16), after the path about the same; a path of rarer words costs little and warms nothing,
 * as its hot loops barely run.
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
