import type { DemoManifest, Needle } from "../demo/index.js";
import { COMMON_WORDS, ERROR_CODES, FILE_PATHS } from "../demo/vocabulary.js";
import { STOPWORDS } from "../search/stopwords.js";
import { SeededRandom } from "./measure.js";

/**
 * Query sets drawn from the corpus itself: planted needles (rare words; the generator reports
 * where each one is), the vocabulary's most frequent words (both generators draw words by Zipf
 * rank, so the head is in a large share of all messages), and identifiers (file paths, error
 * codes or code symbols of the vocabulary).
 */
export type QueryClass = "rare" | "mixed" | "common" | "identifier" | "filtered";

export interface BenchQuery {
  cls: QueryClass;
  text: string;
  /** The needle this query was built from (its source, session and time), when any. */
  needle?: Needle;
  filters?: {
    project?: string;
    kind?: "transcript";
    agent?: "claude" | "codex" | "opencode";
    since?: number;
    until?: number;
    session?: string;
  };
}

/** What a corpus gives the query builder. */
export interface QueryCorpus {
  needles: readonly Needle[];
  projects: readonly string[];
  /** Sources whose needles are asked (and whose agents a filter names). */
  sources: readonly Needle["source"][];
  /** Plain words, most frequent first. */
  commonWords: readonly string[];
  /** Identifier pools: a query picks a pool, then one identifier of it. */
  identifiers: readonly (readonly string[])[];
}

/** The demo corpus's: its most frequent file paths and its error codes as identifiers. */
export function demoQueryCorpus(manifest: DemoManifest, sources: readonly Needle["source"][]): QueryCorpus {
  return {
    needles: manifest.needles,
    projects: manifest.projects,
    sources,
    commonWords: COMMON_WORDS,
    identifiers: [FILE_PATHS.slice(0, 60), ERROR_CODES],
  };
}

/** The demo generator's own glue words, which its Zipf sampling skips (src/demo/text.ts). */
const GLUE = new Set(
  "the to and of a in is we for that it this with on be not should when can so from".split(" "),
);

/** A corpus's 40 most frequent content words (no glue, no stopwords), most frequent first. */
function commonQueryWords(words: readonly string[]): string[] {
  return words.filter((w) => /^[a-z]+$/.test(w) && !GLUE.has(w) && !STOPWORDS.has(w)).slice(0, 40);
}

const WORD = /^[A-Za-z]+$/;

/** A needle's token with one or two neighbouring words of its sentence (a "2–3 word" query). */
function mixedQuery(rng: SeededRandom, needle: Needle): string {
  const words = needle.text.replace(/[.,;:]/g, "").split(/\s+/);
  const i = words.findIndex((w) => w.includes(needle.token));
  const before = words.slice(Math.max(0, i - 3), i).filter((w) => WORD.test(w) && !GLUE.has(w.toLowerCase()));
  const after = words.slice(i + 1, i + 4).filter((w) => WORD.test(w) && !GLUE.has(w.toLowerCase()));
  const pool = [...before, ...after];
  const extra = 1 + rng.int(2);
  const picked: string[] = [];
  for (let k = 0; k < extra && pool.length > 0; k++) picked.push(pool.splice(rng.int(pool.length), 1)[0]!);
  return [needle.token, ...picked].join(" ");
}

function commonQuery(rng: SeededRandom, common: readonly string[]): string {
  const n = 1 + rng.int(3);
  const words = new Set<string>();
  // Bias toward the head: the most frequent words are the hard case.
  while (words.size < n) words.add(common[Math.floor(Math.pow(rng.next(), 1.5) * common.length)]!);
  return [...words].join(" ");
}

function identifierQuery(rng: SeededRandom, pools: readonly (readonly string[])[]): string {
  return rng.pick(pools[Math.floor(rng.next() * pools.length)]!);
}

const DAY = 86_400_000;

/**
 * `count` queries of each class. Needles are cycled when the corpus has fewer than `count`.
 * `filtered` (history only) takes queries of the other classes and adds a project, kind, agent,
 * time or session filter, in turn; a needle's filter always admits the needle's own record.
 */
export function buildQueries(
  corpus: QueryCorpus,
  count: number,
  options: { filtered: boolean; seed: number },
): Record<QueryClass, BenchQuery[]> {
  const rng = new SeededRandom(options.seed);
  const needles = corpus.needles.filter((n) => corpus.sources.includes(n.source));
  const common = commonQueryWords(corpus.commonWords);
  const at = (i: number) => needles[i % Math.max(1, needles.length)];
  const out: Record<QueryClass, BenchQuery[]> = {
    rare: [],
    mixed: [],
    common: [],
    identifier: [],
    filtered: [],
  };
  for (let i = 0; i < count; i++) {
    const n = at(i);
    if (n) out.rare.push({ cls: "rare", text: n.token, needle: n });
    const m = at(i + Math.floor(needles.length / 2));
    if (m) out.mixed.push({ cls: "mixed", text: mixedQuery(rng, m), needle: m });
    out.common.push({ cls: "common", text: commonQuery(rng, common) });
    out.identifier.push({ cls: "identifier", text: identifierQuery(rng, corpus.identifiers) });
  }
  if (options.filtered) {
    const agents = (["claude", "codex", "opencode"] as const).filter((a) => corpus.sources.includes(a));
    for (let i = 0; i < count; i++) {
      const base = [out.rare, out.mixed, out.common, out.identifier][i % 4]![Math.floor(i / 4) % count];
      if (!base) continue;
      const q: BenchQuery = {
        cls: "filtered",
        text: base.text,
        ...(base.needle ? { needle: base.needle } : {}),
      };
      const kind = Math.floor(i / 4) % 5;
      const project = base.needle?.project ?? rng.pick(corpus.projects);
      const time =
        base.needle?.at ?? corpus.needles[rng.int(corpus.needles.length)]?.at ?? Date.UTC(2026, 0, 1);
      if (kind === 0) q.filters = { project };
      else if (kind === 1) q.filters = { kind: "transcript" };
      else if (kind === 2) q.filters = { since: time - 30 * DAY, until: time + 30 * DAY };
      else if (kind === 3)
        q.filters = {
          session: base.needle?.session ?? corpus.needles[rng.int(corpus.needles.length)]!.session,
        };
      else
        q.filters = {
          agent: base.needle
            ? base.needle.source === "claude"
              ? "claude"
              : base.needle.source === "codex"
                ? "codex"
                : "opencode"
            : rng.pick(agents),
        };
      out.filtered.push(q);
    }
  }
  return out;
}
