import { describe, expect, it } from "vitest";
import { compileHistoryQuery } from "./history-query.js";

const units = (q: string, max = 32) => compileHistoryQuery(q, max).units;

describe("search_history's query compiler", () => {
  it("stems words, keeps their exact forms and drops stopwords while other words remain", () => {
    expect(units("What did we decide about the retention policies?")).toEqual([
      { terms: ["decid*"], exact: ["decide"], phrase: false },
      { terms: ["retention*"], exact: ["retention"], phrase: false },
      { terms: ["polic*"], exact: ["policies"], phrase: false },
    ]);
    expect(units("the of")).toEqual([
      { terms: ["the"], exact: ["the"], phrase: false },
      { terms: ["of"], exact: ["of"], phrase: false },
    ]);
    // Clitics go: "Caroline's" searches "caroline", "didn't" is a stopword.
    expect(compileHistoryQuery("Caroline's plan didn't ship", 32).terms).toEqual([
      "carolin*",
      "plan*",
      "ship*",
    ]);
  });

  it("reads an identifier as one unit of exact parts, never stemmed or dropped", () => {
    expect(units("hunter2-PLANTED-db-password")).toEqual([
      {
        terms: ["hunter2", "planted", "db", "password"],
        exact: ["hunter2", "planted", "db", "password"],
        phrase: true,
      },
    ]);
    expect(units("open 0042_enable_rls.sql")).toEqual([
      { terms: ["open*"], exact: ["open"], phrase: false },
      { terms: ["0042", "enable", "rls", "sql"], exact: ["0042", "enable", "rls", "sql"], phrase: true },
    ]);
    expect(units("how-to")[0]).toMatchObject({ exact: ["how", "to"], phrase: true });
  });

  it("makes a CJK run one phrase term and keeps Latin words beside it whole", () => {
    expect(units("PostgreSQLと検索結果")).toEqual([
      { terms: ["postgresql*"], exact: ["postgresql"], phrase: false },
      { terms: ["と 検 索 結 果"], exact: ["と", "検", "索", "結", "果"], phrase: true },
    ]);
    expect(units("表")).toEqual([{ terms: ["表"], exact: ["表"], phrase: false }]);
  });

  it("keeps at most the given number of terms, whole units first", () => {
    // The identifier's three parts do not fit after two words: it and what follows are left out.
    const q = compileHistoryQuery("alpha beta gamma-delta-epsilon zeta", 4);
    expect(q.terms).toEqual(["alpha*", "beta*"]);
    // A single unit longer than the bound is cut, not dropped.
    expect(compileHistoryQuery("a-b-c-d-e-f", 3).terms).toEqual(["a", "b", "c"]);
    // Repeats are read once.
    expect(compileHistoryQuery("build build BUILD", 32).units).toHaveLength(1);
  });
});
