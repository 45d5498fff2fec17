/**
 * The pure compilation between recall's query units and PostgreSQL's tsvector/tsquery text
 * (src/team/tsquery.ts) and the IDF weight (src/team/rank.ts): no server needed.
 */
import { describe, expect, it } from "vitest";
import { compileHistoryQuery } from "../../src/search/history-query.js";
import { MAX_QUERY_TOKENS } from "../../src/search/history.js";
import { idf } from "../../src/team/rank.js";
import { compileTsquery, teamTokens, tsvectorLiteral, unitQuery } from "../../src/team/tsquery.js";

const compile = (q: string) => compileHistoryQuery(q, MAX_QUERY_TOKENS);

describe("team tsquery compilation", () => {
  it("makes strict passes an AND of units and the relaxed pass an OR", () => {
    const q = compile("what did we decide about the retention policies");
    expect(compileTsquery(q, "exact")).toBe("'decide' & 'retention' & 'policies'");
    expect(compileTsquery(q, "forms")).toBe("'decid':* & 'retention':* & 'polic':*");
    expect(compileTsquery(q, "relaxed")).toBe("'decid':* | 'retention':* | 'polic':*");
  });

  it("reads identifiers as phrases when strict and as all their parts when relaxed", () => {
    const q = compile("0042_enable_rls.sql build-log");
    expect(compileTsquery(q, "exact")).toBe(
      "('0042' <-> 'enable' <-> 'rls' <-> 'sql') & ('build' <-> 'log')",
    );
    expect(compileTsquery(q, "relaxed")).toBe("('0042' & 'enable' & 'rls' & 'sql') | ('build' & 'log')");
  });

  it("reads a CJK run as a phrase of its characters", () => {
    const q = compile("検索結果");
    expect(unitQuery(q.units[0]!, "exact")).toBe("('検' <-> '索' <-> '結' <-> '果')");
  });

  it("never lets caller text through as tsquery syntax", () => {
    const q = compile("a' | !b & c:* <-> (d) \\\\ 'e'");
    for (const pass of ["exact", "forms", "relaxed"] as const) {
      const text = compileTsquery(q, pass);
      // Every lexeme is quoted; operators come from the compiler only.
      expect(text.replace(/'[^']*'(:\*)?/g, "X")).toMatch(/^[X&|()<\->\s]*$/);
    }
  });

  it("builds the tsvector from the local index's tokens, with positions", () => {
    expect(teamTokens("Résumé build-log 0042_enable_rls.sql")).toEqual([
      "resume",
      "build",
      "log",
      "0042",
      "enable",
      "rls",
      "sql",
    ]);
    expect(tsvectorLiteral("deploy the deploy")).toBe("'deploy':1,3 'the':2");
    expect(tsvectorLiteral("it's O'Brien")).toBe("'it':1 's':2 'o':3 'brien':4");
  });

  it("weighs a rare unit above a common one, as bm25's IDF does", () => {
    expect(idf(1, 1_000_000)).toBeGreaterThan(idf(10_000, 1_000_000));
    expect(idf(900_000, 1_000_000)).toBe(1e-6);
  });
});
