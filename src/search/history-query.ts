import { hasCjk } from "../projection/cjk.js";
import { splitCjk } from "./query.js";
import { prefixTerm } from "./stem.js";
import { STOPWORDS } from "./stopwords.js";

/**
 * search_history's query compiler: caller text becomes literal units, each matched by planner
 * terms (quoted FTS5 phrases or stem prefixes, stem.ts), so no caller text is ever executed as
 * FTS syntax.
 *
 * - A word becomes its stem prefix ("decisions" → `decision*`), so singular, plural and verb
 *   forms find each other both ways; its exact form is kept to rank exact matches first.
 * - An identifier (parts joined by `-`, `_`, `.`, `/` or `:` with no space: `build-log`,
 *   `0042_enable_rls.sql`) is one unit of exact parts, matched as a phrase first; a relaxed hit
 *   must hold all of its parts, so one generic part never carries a hit alone.
 * - A run of CJK characters is one phrase term of its characters (the search projection makes
 *   each CJK character a token, projection/cjk.ts), so a word inside a sentence is found.
 * - Stopwords and question words are left out when anything else remains, so "what did we decide
 *   about X" is neither emptied nor diluted by "what", "did" and "we".
 */

export interface QueryUnit {
  /** Planner terms: lower-case tokens, or stem prefixes ending in `*`. */
  terms: string[];
  /** The unit's tokens as typed (case-folded): a word's exact form, an identifier's parts. */
  exact: string[];
  /** Whether the terms must also be adjacent and in order to count as the unit's best match. */
  phrase: boolean;
}

export interface HistoryQuery {
  units: QueryUnit[];
  /** Every unit's terms, de-duplicated, in query order: stems where words have them. */
  terms: string[];
  /** The same with each word as typed: what the first strict pass ranks. */
  exactTerms: string[];
}

/** Runs of characters joined into one identifier when nothing but these separates them. */
const CHUNK =
  /[\p{L}\p{N}\p{M}]+(?:['’][\p{L}\p{N}\p{M}]+)*(?:[-_./:][\p{L}\p{N}\p{M}]+(?:['’][\p{L}\p{N}\p{M}]+)*)*/gu;
const PART = /[\p{L}\p{N}\p{M}]+(?:['’][\p{L}\p{N}\p{M}]+)*/gu;
/** English clitics: "Caroline's" searches "caroline", "didn't" "didn" (a stopword). */
const CLITIC = /['’](?:s|t|d|m|ll|re|ve)$/u;

/** Lower-cased parts of a non-CJK run: clitics cut, apostrophes inside a word kept out of tokens. */
function partsOf(text: string): string[] {
  const parts: string[] = [];
  for (const m of text.matchAll(PART)) {
    const word = m[0].toLowerCase().replace(CLITIC, "");
    for (const piece of word.split(/['’]/)) if (piece) parts.push(piece);
  }
  return parts;
}

/** The query's units, before stopwords are dropped. */
function allUnits(query: string): QueryUnit[] {
  const units: QueryUnit[] = [];
  for (const chunk of query.normalize("NFC").matchAll(CHUNK)) {
    for (const run of splitCjk(chunk[0])) {
      if (hasCjk(run)) {
        const chars = run.split(" ");
        units.push({ terms: [run], exact: chars, phrase: chars.length > 1 });
        continue;
      }
      const parts = partsOf(run);
      if (parts.length === 1) {
        const word = parts[0]!;
        units.push({ terms: [prefixTerm(word)], exact: [word], phrase: false });
      } else if (parts.length > 1) {
        units.push({ terms: parts, exact: parts, phrase: true });
      }
    }
  }
  return units;
}

const isStopword = (u: QueryUnit) => u.exact.length === 1 && !u.phrase && STOPWORDS.has(u.exact[0]!);

/**
 * Compiles a search_history query: at most `maxTerms` distinct terms (later units are dropped
 * whole, so an identifier is never cut in half unless it alone is longer).
 */
export function compileHistoryQuery(query: string, maxTerms: number): HistoryQuery {
  const every = allUnits(query);
  const significant = every.filter((u) => !isStopword(u));
  const chosen = significant.length > 0 ? significant : every;
  const units: QueryUnit[] = [];
  const terms: string[] = [];
  const seen = new Set<string>();
  const key = (u: QueryUnit) => `${u.phrase ? "p" : "w"}:${u.terms.join(" ")}`;
  for (const unit of chosen) {
    if (seen.has(key(unit))) continue;
    const fresh = [...new Set(unit.terms)].filter((t) => !terms.includes(t));
    if (terms.length + fresh.length > maxTerms) {
      if (terms.length > 0) break;
      const cut = unit.terms.slice(0, maxTerms);
      units.push({ terms: cut, exact: unit.exact.slice(0, maxTerms), phrase: cut.length > 1 && unit.phrase });
      terms.push(...new Set(cut));
      break;
    }
    seen.add(key(unit));
    units.push(unit);
    terms.push(...fresh);
  }
  const exactTerms = [...new Set(units.flatMap((u) => (u.phrase ? u.terms : u.exact)))];
  return { units, terms, exactTerms };
}
