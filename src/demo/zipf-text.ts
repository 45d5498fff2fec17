import type { Rng } from "./rng.js";
import { ZIPF_FUNCTION_WORDS, type ZipfVocabulary } from "./zipf-vocabulary.js";

/**
 * Text for the Zipf corpus: every word drawn by rank from the vocabulary, lengths long-tailed
 * (lognormal: many short turns, a few very long), tool output in the shapes a coding agent sees
 * (logs, test runs, grep hits, listings, git logs, code) with fresh numbers, timestamps and
 * hashes, so the index meets the unbounded tail of one-off tokens real output has. It records
 * which types it drew, so the corpus can say how much of its vocabulary it used.
 */

const LEVELS = ["INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"];
const MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(" ");
const KEYWORDS = ["const", "let", "return", "await", "if", "for", "def", "fn", "func", "pub", "import"];

const capitalize = (s: string) => (s.length === 0 ? s : s[0]!.toUpperCase() + s.slice(1));
const pad2 = (n: number) => String(n).padStart(2, "0");

export class ZipfText {
  /** 1 for each rank drawn at least once. */
  private readonly drawn: Uint8Array;

  constructor(readonly vocabulary: ZipfVocabulary) {
    this.drawn = new Uint8Array(vocabulary.words.length);
  }

  /** Distinct types drawn so far. */
  typesUsed(): number {
    let n = 0;
    for (const d of this.drawn) n += d;
    return n;
  }

  private at(rank: number): string {
    this.drawn[rank] = 1;
    return this.vocabulary.words[rank]!;
  }

  word(rng: Rng): string {
    return this.at(this.vocabulary.sampler.sample(rng));
  }

  identifier(rng: Rng): string {
    const v = this.vocabulary;
    return this.at(v.identifierRanks[v.identifierSampler.sample(rng)]!);
  }

  /** An identifier of `kind` (a few draws; the most frequent one of that kind if they all miss). */
  private identifierOf(rng: Rng, kind: "path" | "symbol"): string {
    const v = this.vocabulary;
    for (let i = 0; i < 8; i++) {
      const rank = v.identifierRanks[v.identifierSampler.sample(rng)]!;
      if (v.kinds[rank] === kind) return this.at(rank);
    }
    return v.top(kind, 1)[0]!;
  }

  /** A plain word that carries meaning (no function word, no identifier): needles' neighbours. */
  contentWord(rng: Rng): string {
    const v = this.vocabulary;
    for (;;) {
      const rank = v.sampler.sample(rng);
      const w = v.words[rank]!;
      if (v.kinds[rank] === "word" && !ZIPF_FUNCTION_WORDS.has(w) && /^[a-z]+$/.test(w)) return this.at(rank);
    }
  }

  /** A lognormal count: `median` × e^(sigma·N(0,1)), within [1, max]. */
  length(rng: Rng, median: number, sigma: number, max: number): number {
    return Math.max(1, Math.min(max, Math.round(median * Math.exp(sigma * rng.normal()))));
  }

  /** `n` words as prose: sentences, an identifier now and then in backticks, paragraphs when long. */
  prose(rng: Rng, n: number): string {
    let out = "";
    let start = true;
    for (let i = 0; i < n; i++) {
      const rank = this.vocabulary.sampler.sample(rng);
      let w = this.at(rank);
      if (this.vocabulary.kinds[rank] !== "word") {
        if (rng.chance(0.5)) w = `\`${w}\``;
      } else if (start) w = capitalize(w);
      if (i > 0) out += start && rng.chance(0.08) ? "\n\n" : " ";
      out += w;
      start = false;
      if (i === n - 1) out += rng.chance(0.12) ? "?" : ".";
      else if (rng.chance(1 / 11)) {
        out += rng.chance(0.12) ? "?" : ".";
        start = true;
      } else if (rng.chance(0.05)) out += ",";
    }
    return out;
  }

  /** A typed prompt: mostly a line or two, sometimes a pasted page. */
  userPrompt(rng: Rng): string {
    return this.prose(rng, this.length(rng, 10, 1.1, 2500));
  }

  /** The text an assistant ends its turn with. */
  assistantReply(rng: Rng): string {
    const text = this.prose(rng, this.length(rng, 14, 1.0, 3000));
    if (!rng.chance(0.2)) return text;
    const items = Array.from(
      { length: 2 + rng.int(4) },
      () => `- ${this.prose(rng, this.length(rng, 9, 0.5, 60))}`,
    );
    return `${text}\n\n${items.join("\n")}`;
  }

  /** A short line before a tool call ("Let me check …"). */
  preamble(rng: Rng): string {
    return this.prose(rng, this.length(rng, 8, 0.6, 120));
  }

  thinking(rng: Rng): string {
    return this.prose(rng, this.length(rng, 30, 0.8, 1200));
  }

  title(rng: Rng): string {
    return capitalize(Array.from({ length: 3 + rng.int(4) }, () => this.contentWord(rng)).join(" "));
  }

  path(rng: Rng): string {
    return this.identifierOf(rng, "path");
  }

  symbol(rng: Rng): string {
    return this.identifierOf(rng, "symbol");
  }

  command(rng: Rng): string {
    switch (rng.int(10)) {
      case 0:
        return `npm test -- ${this.path(rng)}`;
      case 1:
        return `npx vitest run ${this.path(rng)}`;
      case 2:
        return `git log --oneline -n ${rng.range(5, 40)}`;
      case 3:
        return `rg -n "${this.word(rng)}" ${this.path(rng).replace(/\/[^/]*$/, "")}`;
      case 4:
        return `cat ${this.path(rng)}`;
      case 5:
        return `pytest -q ${this.path(rng)} -k ${this.symbol(rng)}`;
      case 6:
        return `git diff ${this.path(rng)}`;
      case 7:
        return `grep -rn ${this.symbol(rng)} src`;
      case 8:
        return `cargo test ${this.symbol(rng)}`;
      default:
        return `ls -la ${this.path(rng).replace(/\/[^/]*$/, "")}`;
    }
  }

  /** A fresh 7-character hash: most of a log's hashes are never seen again. */
  private freshHex(rng: Rng): string {
    return rng.hex(4).slice(0, 7);
  }

  private timestamp(rng: Rng): string {
    return `2026-${pad2(rng.range(1, 12))}-${pad2(rng.range(1, 28))}T${pad2(rng.int(24))}:${pad2(rng.int(60))}:${pad2(rng.int(60))}.${String(rng.int(1000)).padStart(3, "0")}Z`;
  }

  /** `lo` to `hi` words, space-separated, nothing else. */
  words(rng: Rng, lo: number, hi: number): string {
    let out = this.word(rng);
    for (let i = 1, n = rng.range(lo, hi); i < n; i++) out += " " + this.word(rng);
    return out;
  }

  /** One line of code, identifiers and words from the vocabulary. */
  codeLine(rng: Rng): string {
    switch (rng.int(8)) {
      case 0:
        return `const ${this.symbol(rng)} = await ${this.symbol(rng)}(${this.word(rng)}, ${rng.int(100)});`;
      case 1:
        return `def ${this.symbol(rng)}(${this.word(rng)}, ${this.word(rng)}):`;
      case 2:
        return `import { ${this.symbol(rng)} } from "./${this.path(rng)}";`;
      case 3:
        return `  // ${this.words(rng, 4, 12)}`;
      case 4:
        return `  if (!${this.symbol(rng)}) throw new Error("${this.words(rng, 3, 8)}");`;
      case 5:
        return `  ${rng.pick(KEYWORDS)} ${this.symbol(rng)}.${this.word(rng)}(${this.identifier(rng)})`;
      case 6:
        return `  return ${this.symbol(rng)};`;
      default:
        return "}";
    }
  }

  /** Code of about `chars` characters. */
  code(rng: Rng, chars: number): string {
    const lines: string[] = [];
    for (let size = 0; size < chars;) {
      const line = this.codeLine(rng);
      lines.push(line);
      size += line.length + 1;
    }
    return lines.join("\n");
  }

  /** A tool's output of about `chars` characters, in one of the shapes tools print. */
  toolOutput(rng: Rng, chars: number): string {
    const shape = rng.int(6);
    const lines: string[] = [];
    for (let size = 0; size < chars;) {
      let line: string;
      if (shape === 0) line = `${this.timestamp(rng)} ${rng.pick(LEVELS)} ${this.words(rng, 4, 14)}`;
      else if (shape === 1)
        line = `${rng.chance(0.9) ? "  ✓" : "  ×"} ${this.words(rng, 3, 9)} (${rng.range(1, 900)} ms)`;
      else if (shape === 2) line = `${this.path(rng)}:${rng.range(1, 900)}: ${this.codeLine(rng).trim()}`;
      else if (shape === 3)
        line = `-rw-r--r--  1 dev  staff  ${rng.range(80, 90_000)} ${rng.pick(MONTHS)} ${rng.range(1, 28)} ${pad2(rng.int(24))}:${pad2(rng.int(60))} ${this.path(rng)}`;
      else if (shape === 4)
        line = `${rng.chance(0.3) ? this.identifier(rng) : this.freshHex(rng)} ${this.words(rng, 3, 10)}`;
      else line = this.codeLine(rng);
      lines.push(line);
      size += line.length + 1;
    }
    return lines.join("\n");
  }
}
