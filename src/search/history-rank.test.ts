import { describe, expect, it } from "vitest";
import { compileHistoryQuery } from "./history-query.js";
import { orderPass, unitMatches, type Candidate } from "./history-rank.js";

const units = (q: string) => compileHistoryQuery(q, 32).units;
let next = 0;
const candidate = (text: string, score: number, extra: Partial<Candidate> = {}): Candidate => ({
  id: ++next,
  at: 0,
  score,
  conversation: `c${next}`,
  role: "user",
  text,
  ...extra,
});

describe("search_history's ordering of a pass", () => {
  it("tells exact forms, stems, phrases and lone parts apart, folding as the index does", () => {
    expect(unitMatches("Two decisions were made", units("decision"))).toEqual(["stem"]);
    expect(unitMatches("Two decisions were made", units("decisions"))).toEqual(["exact"]);
    expect(unitMatches("Le CAFÉ est fermé", units("café"))).toEqual(["exact"]);
    const id = units("hunter2-planted-db-password");
    expect(unitMatches("set hunter2-PLANTED-db-password now", id)).toEqual(["exact"]);
    expect(unitMatches("db password planted by hunter2", id)).toEqual(["stem"]);
    expect(unitMatches("we planted tomatoes", id)).toEqual(["partial"]);
    expect(unitMatches("検\u200B索\u200B結\u200B果", units("検索結果"))).toEqual(["exact"]);
  });

  it("ranks turns before tool output and exact forms before stems within a pass", () => {
    const q = units("deploy");
    const tool = candidate("deploy deploy deploy", -9, { role: "tool" });
    const stemmed = candidate("deploying the gateway", -5);
    const exact = candidate("we deploy the gateway", -4.5);
    expect(orderPass([tool, stemmed, exact], q, false).map((c) => c.id)).toEqual([
      exact.id,
      stemmed.id,
      tool.id,
    ]);
  });

  it("drops relaxed candidates holding only part of an identifier, and groups by conversation", () => {
    const q = units("rotate hunter2-planted-db-password");
    const noise = candidate("we planted tomatoes", -9);
    const a1 = candidate("rotate the keys", -3, { conversation: "a" });
    const a2 = candidate("rotate again", -2.9, { conversation: "a" });
    const a3 = candidate("rotate thrice", -2.8, { conversation: "a" });
    const b1 = candidate("rotate once", -3.1, { conversation: "b" });
    const order = orderPass([noise, a1, a2, a3, b1], q, true).map((c) => c.id);
    // a: -3 + 0.3 × -2.9 beats b's lone -3.1; a gives two hits before b gives its first.
    expect(order).toEqual([a1.id, a2.id, b1.id, a3.id]);
  });
});
