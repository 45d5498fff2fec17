import type { Rng } from "./rng.js";

/**
 * Canary markers: unique strings planted ONLY inside bodies that a correct projection drops or
 * bounds (thinking, reasoning, tool outputs, file-write bodies, base64 payloads, Dyad payload tags,
 * think tags, ai_messages_json). If a dropped kind ever shows up in an index, a search result or
 * an export of projected text, something leaked (see PREVIEWED_CANARY_KINDS for the others).
 *
 * The pool is capped (8 kinds × 24 = 192 distinct strings) and reused round-robin across the corpus.
 * Every marker is `CANARY<KIND><12 hex>`, made of [A-Z0-9a-f] only, so it is also valid base64.
 */
export const CANARY_KINDS = ["THINK", "TOOL", "WRITE", "B64", "REASON", "ENC", "DYAD", "AIJSON"] as const;
export type CanaryKind = (typeof CANARY_KINDS)[number];

export const CANARIES_PER_KIND = 24;

/** What generators need: the next marker of a kind. */
export interface CanarySource {
  take(kind: CanaryKind): string;
}

export class CanaryPool implements CanarySource {
  private readonly pool = new Map<CanaryKind, string[]>();
  private readonly cursor = new Map<CanaryKind, number>();
  private readonly usedSet = new Set<string>();

  constructor(rng: Rng) {
    const r = rng.fork("canaries");
    for (const kind of CANARY_KINDS) {
      const list: string[] = [];
      for (let i = 0; i < CANARIES_PER_KIND; i++) list.push(`CANARY${kind}${r.hex(6)}`);
      this.pool.set(kind, list);
      this.cursor.set(kind, 0);
    }
  }

  /** The next marker of `kind` (round-robin), recorded as used. */
  take(kind: CanaryKind): string {
    const list = this.pool.get(kind) as string[];
    const i = this.cursor.get(kind) as number;
    this.cursor.set(kind, (i + 1) % list.length);
    const c = list[i] as string;
    this.usedSet.add(c);
    return c;
  }

  /**
   * A view with its own round-robin cursors starting at `offset`, sharing the pool and the used set,
   * so each source's output does not depend on how many canaries the other sources took.
   */
  view(offset: number): CanarySource {
    const cursors = new Map<CanaryKind, number>();
    return {
      take: (kind: CanaryKind): string => {
        const list = this.pool.get(kind) as string[];
        const i = cursors.get(kind) ?? offset % list.length;
        cursors.set(kind, (i + 1) % list.length);
        const c = list[i] as string;
        this.usedSet.add(c);
        return c;
      },
    };
  }

  /** Every marker planted so far, in pool order (stable across runs). */
  used(): string[] {
    const out: string[] = [];
    for (const kind of CANARY_KINDS)
      for (const c of this.pool.get(kind) as string[]) if (this.usedSet.has(c)) out.push(c);
    return out;
  }
}

/**
 * Kinds planted in tool output and written-file bodies of transcripts. Since issue #29 a bounded
 * head-and-tail preview of those is searchable (role `tool`, projection/tool-preview.ts), so these
 * markers may show in transcript hits and conversations; in Dyad chats, whose projection keeps
 * payload tags out, they must not, and every other kind must never show anywhere.
 */
export const PREVIEWED_CANARY_KINDS: readonly CanaryKind[] = ["TOOL", "WRITE"];

/** Matches a canary of a kind no projection may ever keep (all but PREVIEWED_CANARY_KINDS). */
export const DROPPED_CANARY_PATTERN = /CANARY(?:THINK|B64|REASON|ENC|DYAD|AIJSON)[0-9a-f]{12}/g;

/** Matches any canary marker (for tests and audits). */
export const CANARY_PATTERN = /CANARY(?:THINK|TOOL|WRITE|B64|REASON|ENC|DYAD|AIJSON)[0-9a-f]{12}/g;
