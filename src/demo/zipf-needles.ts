import type { Needle } from "./manifest.js";
import type { Rng } from "./rng.js";
import type { ZipfText } from "./zipf-text.js";

/**
 * Needles for the Zipf corpus, on the demo's schedule (needles.ts): one per hundred messages
 * (at least ten), a quarter of them in the oldest tenth, alternating user and assistant prose.
 * The token (letters, then digits: no vocabulary type looks like it) sits between two content
 * words of the corpus's own vocabulary, inside a sentence of Zipf-drawn words, so a "mixed" query
 * (the token and a neighbour or two) pairs a unique term with ordinary ones of this corpus.
 */

const PREFIXES = "wyvern quokka tamarind lichen opal zircon ember fjord gannet heron mistral sorrel".split(
  " ",
);
const SUFFIXES = "pike wold mere tarn scree fell holt combe".split(" ");

interface Target {
  index: number;
  role: "user" | "assistant";
}

export interface PlantedSentence {
  token: string;
  sentence: string;
}

export class ZipfNeedles {
  private readonly targets: Target[] = [];
  private next = 0;
  private pending: (PlantedSentence & { role: "user" | "assistant" }) | null = null;
  private readonly planted: Needle[] = [];

  constructor(
    private readonly rng: Rng,
    plannedMessages: number,
  ) {
    const count = Math.max(10, Math.round(plannedMessages / 100));
    const old = Math.ceil(count / 4);
    for (let i = 0; i < count; i++) {
      const index =
        i < old
          ? Math.floor((plannedMessages * 0.1 * (i + 0.5)) / old)
          : Math.floor(plannedMessages * 0.1 + (plannedMessages * 0.8 * (i - old + 0.5)) / (count - old));
      this.targets.push({ index, role: i % 2 === 0 ? "user" : "assistant" });
    }
  }

  /** True when the next needle belongs in this prose message (`index`: the message's ordinal). */
  due(index: number, role: "user" | "assistant"): boolean {
    const t = this.targets[this.next];
    if (t === undefined || index < t.index) return false;
    return t.role === role || index - t.index > 6;
  }

  /** The next needle's token and the sentence that carries it. */
  plant(text: ZipfText, role: "user" | "assistant"): PlantedSentence {
    const { rng } = this;
    const n = this.next++;
    const token = `${rng.pick(PREFIXES)}${rng.pick(SUFFIXES)}${String(n).padStart(4, "0")}`;
    const lead = text.words(rng, 3, 7);
    const sentence = `${lead[0]!.toUpperCase()}${lead.slice(1)} ${text.contentWord(rng)} ${token} ${text.contentWord(rng)} ${text.words(rng, 2, 6)}.`;
    this.pending = { token, sentence, role };
    return { token, sentence };
  }

  /** Where the needle just planted went. */
  record(loc: Pick<Needle, "session" | "project" | "at" | "ref">): void {
    const p = this.pending;
    if (p === null) throw new Error("record() without plant()");
    this.pending = null;
    this.planted.push({
      query: p.token,
      token: p.token,
      source: "claude",
      role: p.role,
      text: p.sentence,
      ...loc,
    });
  }

  needles(): Needle[] {
    return this.planted;
  }
}
