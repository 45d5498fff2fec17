import { availableParallelism } from "node:os";
import { MessageChannel, Worker, type MessagePort } from "node:worker_threads";
import { threadEntry } from "../platform/thread-entry.js";
import type { Db } from "../store/open.js";
import type { StoredTermStats } from "../store/term-stats.js";

/** What the helper's thread answers for a term: its statistics, or why it could not. */
export type HelperReply = { term: string; stats: StoredTermStats } | { term: string; failed: string };

/** A plan's terms, handed to the thread with the word both threads claim them through. */
export interface SharedTerms {
  terms: string[];
  claims: SharedArrayBuffer;
}

/**
 * Claims the next term of a shared list, from its start (this thread) or its end (the helper's):
 * one 32-bit word holds both ends (start << 16 | end), so one compare-and-swap claims a term and
 * the two never take the same one. -1 once they have met.
 */
export function claim(claims: Int32Array, fromEnd: boolean): number {
  for (;;) {
    const word = Atomics.load(claims, 0);
    const start = word >>> 16;
    const end = word & 0xffff;
    if (start >= end) return -1;
    const next = fromEnd ? (start << 16) | (end - 1) : ((start + 1) << 16) | end;
    if (Atomics.compareExchange(claims, 0, word, next) === word) return fromEnd ? end - 1 : start;
  }
}

/** Terms a plan may hand over at once: both ends fit 16 bits. */
const MAX_SHARED = 0xffff;

/**
 * A second thread computing common terms' statistics while `recall index` computes others, so
 * the index is reported ready sooner on a machine with two cores: building the impact lists is
 * almost all of that work (FTS5's bm25 reads every row's size), and the terms are independent.
 * Both threads take terms from one shared list, this one from its start (the commonest, the
 * longest lists) and the helper from its end, until they meet: neither waits for the other to
 * be handed work. This thread writes every result (the helper's connection only reads). Terms
 * the helper took and did not answer (its thread failed) come back through `failed()`.
 */
export class TermStatsHelper {
  #port: MessagePort | null = null;
  #worker: Worker | null = null;
  #shared: { terms: string[]; claims: Int32Array; answered: Set<string> } | null = null;
  readonly #results: StoredTermStats[] = [];
  readonly #returned: string[] = [];
  #wake: (() => void) | null = null;
  #gone = false;

  /** The thread starts with the first list (`recall index` on an index with nothing to plan starts none). */
  constructor(
    private readonly entry: URL,
    private readonly file: string,
  ) {}

  #start(): MessagePort {
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    this.#worker = new Worker(this.entry, {
      workerData: { file: this.file, port: port2 },
      transferList: [port2],
    });
    port1.on("message", (reply: HelperReply) => {
      this.#shared?.answered.add(reply.term);
      if ("stats" in reply) this.#results.push(reply.stats);
      else this.#returned.push(reply.term);
      this.#notify();
    });
    const lost = () => {
      if (this.#gone) return;
      this.#gone = true;
      const shared = this.#shared;
      if (shared) {
        // What it took (the list's end) and did not answer is this thread's to compute now.
        const end = Atomics.load(shared.claims, 0) & 0xffff;
        for (const term of shared.terms.slice(end)) if (!shared.answered.has(term)) this.#returned.push(term);
        shared.answered = new Set(shared.terms.slice(end));
      }
      this.#notify();
    };
    this.#worker.on("error", lost);
    this.#worker.on("exit", lost);
    return port1;
  }

  /** Whether it can take a list (its thread has not ended). */
  get usable(): boolean {
    return !this.#gone;
  }

  /**
   * Hands over a plan's terms (up to 65,535; the rest are returned): from now on this thread
   * takes them with `claim()`, the helper from the other end.
   */
  share(terms: string[]): string[] {
    const list = terms.slice(0, MAX_SHARED);
    const claims = new Int32Array(new SharedArrayBuffer(4));
    claims[0] = list.length;
    this.#shared = { terms: list, claims, answered: new Set() };
    const message: SharedTerms = { terms: list, claims: claims.buffer };
    (this.#port ?? this.#start()).postMessage(message);
    return terms.slice(MAX_SHARED);
  }

  /** This thread's next term of the shared list, or null once the two ends have met. */
  claim(): string | null {
    const shared = this.#shared;
    if (!shared) return null;
    const i = claim(shared.claims, false);
    return i < 0 ? null : shared.terms[i]!;
  }

  /** Every term of the list is claimed, by either thread. */
  get claimed(): boolean {
    const shared = this.#shared;
    if (!shared) return true;
    const word = Atomics.load(shared.claims, 0);
    return word >>> 16 >= (word & 0xffff);
  }

  /** The list is all claimed and every term the helper took is answered (or returned). */
  get finished(): boolean {
    const shared = this.#shared;
    if (!shared) return true;
    const end = Atomics.load(shared.claims, 0) & 0xffff;
    return this.claimed && shared.answered.size >= shared.terms.length - end;
  }

  /** Statistics computed since the last call. */
  take(): StoredTermStats[] {
    return this.#results.splice(0);
  }

  /** Terms it gave back, to compute here: it failed on them, or its thread ended. */
  failed(): string[] {
    return this.#returned.splice(0);
  }

  /** Resolves when it next answers (or its thread ends). */
  answered(): Promise<void> {
    return new Promise((resolve) => (this.#wake = resolve));
  }

  async close(): Promise<void> {
    this.#gone = true;
    this.#port?.close();
    await this.#worker?.terminate();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }
}

/**
 * A helper for `db`'s term statistics, or null where it would not help (one core, in memory) or
 * `recall index` is kept to one thread (RECALL_INDEX_THREAD=off, as its backfill: index-thread.ts).
 */
export function startTermStatsHelper(db: Db): TermStatsHelper | null {
  if (db.memory || availableParallelism() < 2 || process.env.RECALL_INDEX_THREAD === "off") return null;
  const entry = threadEntry(import.meta.url, "term-stats-thread.js", "app");
  return entry ? new TermStatsHelper(entry, db.name) : null;
}
