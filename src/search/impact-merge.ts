import type { ImpactList } from "./term-cache.js";

/**
 * The impact plan's first step (planner.ts rankByImpact): the rows of the terms' impact lists,
 * merged into one id-ordered table of bounds and guesses, and the ones worth scoring.
 */

/** An AND query's matching rows, listed without scoring (planner.ts listMatches). */
export interface Listing {
  /** Matching rows in rowid order: all of them when complete, else the first `cap + 1`. */
  ids: number[];
  complete: boolean;
}

/** Every row of some list, in id order, with the bound and guess of its known impacts. */
export interface MergedLists {
  ids: Float64Array;
  bound: Float64Array;
  guess: Float64Array;
  /** 0 where an AND query's complete list lacks the row (it cannot match). */
  possible: Uint8Array;
  size: number;
}

/**
 * One merge of the lists, which are id-sorted typed arrays (they hold thousands of rows): a
 * hash map of ids cost 3–4 ms a query over five lists of 4,096 rows. A row missing from a list
 * gets that list's floor in its bound, and the floor weighted by the term's share in its guess.
 */
export function mergeLists(
  lists: readonly ImpactList[],
  scale: readonly number[],
  floor: readonly number[],
  share: readonly number[],
  excludes: readonly boolean[],
): MergedLists {
  const n = lists.length;
  const width = lists.reduce((a, l) => a + l.ids.length, 0);
  const out: MergedLists = {
    ids: new Float64Array(width),
    bound: new Float64Array(width),
    guess: new Float64Array(width),
    possible: new Uint8Array(width),
    size: 0,
  };
  const pos = new Int32Array(n);
  for (;;) {
    let id = Infinity;
    for (let t = 0; t < n; t++) {
      const ids = lists[t]!.ids;
      const p = pos[t]!;
      if (p < ids.length && ids[p]! < id) id = ids[p]!;
    }
    if (id === Infinity) break;
    let b = 0;
    let g = 0;
    let possible = 1;
    for (let t = 0; t < n; t++) {
      const v = lists[t]!;
      const p = pos[t]!;
      if (p < v.ids.length && v.ids[p] === id) {
        const k = v.impacts[p]! * scale[t]!;
        b += k;
        g += k;
        pos[t] = p + 1;
      } else if (excludes[t]) possible = 0;
      else {
        b += floor[t]!;
        g += floor[t]! * share[t]!;
      }
    }
    const slot = out.size++;
    out.ids[slot] = id;
    out.bound[slot] = b;
    out.guess[slot] = g;
    out.possible[slot] = possible;
  }
  return out;
}

/**
 * The merged rows worth scoring: possible, not fresh (those are scored first anyway), and, up
 * to the last row an AND query's listing holds (listMatches: its first matching rows), listed:
 * a row there that the listing lacks lacks a term. `region` counts the candidates up to that
 * row, `regionPassing` those the listing holds: the share the plan can expect to pass.
 */
export function usableSlots(
  merged: MergedLists,
  fresh: readonly number[],
  listed: Listing | undefined,
): { usable: number[]; region: number; regionPassing: number } {
  const freshIds = new Set(fresh);
  const known = listed && !listed.complete && listed.ids.length > 0 ? new Set(listed.ids) : null;
  const knownThrough = listed?.ids[listed.ids.length - 1] ?? -Infinity;
  const usable: number[] = [];
  let region = 0;
  let regionPassing = 0;
  for (let slot = 0; slot < merged.size; slot++) {
    if (!merged.possible[slot]) continue;
    const id = merged.ids[slot]!;
    if (known && id <= knownThrough) {
      region++;
      if (!known.has(id)) continue;
      regionPassing++;
    }
    if (freshIds.size === 0 || !freshIds.has(id)) usable.push(slot);
  }
  return { usable, region, regionPassing };
}
