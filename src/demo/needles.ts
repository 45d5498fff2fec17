import type { DemoSource, Needle } from "./manifest.js";
import type { Rng } from "./rng.js";

/**
 * Needles: unique made-up tokens (e.g. `zephyrquin1037`) planted in user or assistant *prose* — never
 * only in a payload — and reported with exact locators so tests and benchmarks can check recall.
 * About a quarter are planted in the oldest tenth of each source, inside sentences built from the
 * corpus's most common words, so many newer messages compete with them.
 */

const SOURCE_DIGIT: Record<DemoSource, number> = { claude: 1, codex: 2, opencode: 3, dyad: 4 };

const PREFIXES =
  "zephyr quartz nimbus obsidian vortex marzipan tundra falcon cobalt saffron lumen orchid basalt cinder juniper kestrel".split(
    " ",
  );
const SUFFIXES = "quin vane lark moth fern glade spire drift crest hollow brook thorn vale wick".split(" ");

/** Needle sentences: `{t}` is the token; every template is mostly common corpus words. */
const TEMPLATES: readonly string[] = [
  "For the record, the session cache for the search index is codenamed {t} and it should stay enabled.",
  "We agreed to call the database migration {t} in the release notes.",
  "Remember that the retry budget flag is {t} and the build must not change it.",
  "The error from the query handler mentions {t} when the index is stale.",
  "Please tag the deploy with {t} so we can find this change later.",
  "I named the new query parser branch {t} to keep it apart from the search refactor.",
  "The test fixture for the session token uses the code {t} in every request.",
  "Our decision: the worker queue batch size lives behind the {t} config key.",
];

/** Splits `total` needles over sources in proportion to their message counts (each enabled source ≥ 1). */
export function allocateNeedles(messages: Partial<Record<DemoSource, number>>): Record<DemoSource, number> {
  const out: Record<DemoSource, number> = { claude: 0, codex: 0, opencode: 0, dyad: 0 };
  const entries = (Object.entries(messages) as [DemoSource, number][]).filter(([, m]) => m >= 4);
  const total = entries.reduce((a, [, m]) => a + m, 0);
  if (total === 0) return out;
  const want = Math.max(10, Math.round(total / 100));
  for (const [s, m] of entries)
    out[s] = Math.min(Math.max(1, Math.round((want * m) / total)), Math.floor(m / 4));
  let have = entries.reduce((a, [s]) => a + out[s], 0);
  // Top up the largest sources until the minimum is met (rounding can lose a few).
  const bySize = [...entries].sort((a, b) => b[1] - a[1]);
  for (let i = 0; have < want && i < want * 4; i++) {
    const [s, m] = bySize[i % bySize.length] as [DemoSource, number];
    if (out[s] < Math.floor(m / 4)) {
      out[s]++;
      have++;
    }
  }
  return out;
}

export interface PlantedText {
  token: string;
  /** The sentence carrying the token (insert it verbatim into the prose). */
  sentence: string;
  query: string;
}

interface Target {
  index: number;
  role: "user" | "assistant";
}

/**
 * Decides which message of a source carries each needle. Generators call `due(index, role)` for
 * every prose message (index = running message ordinal within the source); when it returns true they
 * call `plant()`, put the sentence into the prose and then `record(...)` the locator.
 */
export class NeedlePlanner {
  private readonly targets: Target[] = [];
  private next = 0;
  private readonly planted: Needle[] = [];
  private pendingPlant: { text: PlantedText; role: "user" | "assistant" } | null = null;

  constructor(
    private readonly rng: Rng,
    readonly source: DemoSource,
    readonly count: number,
    plannedMessages: number,
  ) {
    const old = Math.ceil(count / 4);
    const span = Math.max(1, Math.floor(plannedMessages * 0.9));
    for (let i = 0; i < count; i++) {
      const index =
        i < old
          ? Math.floor((plannedMessages * 0.1 * (i + 0.5)) / old)
          : Math.floor(
              plannedMessages * 0.1 +
                ((span - plannedMessages * 0.1) * (i - old + 0.5)) / Math.max(1, count - old),
            );
      this.targets.push({ index, role: i % 2 === 0 ? "user" : "assistant" });
    }
    this.targets.sort((a, b) => a.index - b.index);
  }

  /** True when the next needle should go into this prose message. */
  due(index: number, role: "user" | "assistant"): boolean {
    const t = this.targets[this.next];
    if (t === undefined || index < t.index) return false;
    // Prefer the planned role, but never wait long: after a few messages take either role.
    return t.role === role || index - t.index > 6;
  }

  /** Creates the next needle's token and sentence (call after `due` returned true). */
  plant(role: "user" | "assistant"): PlantedText {
    const n = this.next++;
    const token = `${this.rng.pick(PREFIXES)}${this.rng.pick(SUFFIXES)}${SOURCE_DIGIT[this.source]}${String(n).padStart(3, "0")}`;
    const sentence = this.rng.pick<string>(TEMPLATES).replace("{t}", token);
    const query = pickQuery(this.rng, sentence, token);
    const text = { token, sentence, query };
    this.pendingPlant = { text, role };
    return text;
  }

  /** Records where the last planted needle went. */
  record(loc: {
    session: string;
    project: string | null;
    at: number;
    ref: Record<string, string | number>;
  }): void {
    const p = this.pendingPlant;
    if (p === null) throw new Error("record() without plant()");
    this.pendingPlant = null;
    this.planted.push({
      query: p.text.query,
      token: p.text.token,
      source: this.source,
      session: loc.session,
      project: loc.project,
      at: loc.at,
      ref: loc.ref,
      role: p.role,
      text: p.text.sentence,
    });
  }

  needles(): Needle[] {
    return this.planted;
  }
}

/** The token alone, or a 2–3 word phrase around it that occurs verbatim in the sentence. */
function pickQuery(rng: Rng, sentence: string, token: string): string {
  if (rng.chance(0.5)) return token;
  const words = sentence.split(" ");
  const i = words.findIndex((w) => w.startsWith(token));
  const clean = (w: string | undefined): string | null =>
    w !== undefined && /^[A-Za-z]+$/.test(w) ? w : null;
  const before = clean(words[i - 1]);
  const after = words[i] === token ? clean(words[i + 1]) : null;
  const options: string[] = [];
  if (before !== null) options.push(`${before} ${token}`);
  if (after !== null) options.push(`${token} ${after}`);
  if (before !== null && after !== null) options.push(`${before} ${token} ${after}`);
  const q = options.length > 0 ? rng.pick(options) : token;
  return sentence.includes(q) ? q : token;
}
