import type { Rng } from "./rng.js";
import {
  ADJECTIVES,
  COMMANDS,
  COMMON_WORDS,
  ERROR_CODES,
  ERROR_MESSAGES,
  FILE_PATHS,
  MULTILINGUAL_SENTENCES,
  NOUNS,
  SHELL_OUTPUT_LINES,
  VERBS,
} from "./vocabulary.js";

/**
 * Text for the demo corpus: software-project conversation (decisions, requirements, bugs, errors,
 * file names, error codes) over a Zipf-distributed vocabulary — a few words appear in most messages,
 * a long generated tail is rare — with a fraction of multilingual sentences, plus bulky tool payloads.
 *
 * A `TextModel` is built once per seed and is immutable; every generating call takes the caller's
 * `Rng`, so each source draws from its own stream.
 */

/** Rare-word tail: prefix + root + suffix compounds (e.g. "autosharder", "prefetchable"). */
const TAIL_PREFIXES =
  "auto micro multi over under sub super re de pre post inter hyper meta proto semi".split(" ");
const TAIL_SUFFIXES = ["er", "ers", "ing", "able", "less", "let", "ed", "ness"];
/** Glue words sprinkled between content words in filler text. */
const FUNCTION_WORDS =
  "the to and of a in is we for that it this with on be not should when can so from".split(" ");

const TAIL_SIZE = 8000;
const ZIPF_EXPONENT = 1.15;

function capitalize(s: string): string {
  return s.length === 0 ? s : s[0]!.toUpperCase() + s.slice(1);
}

export interface TextModelOptions {
  /** Size of the generated rare-word tail (default 8000). */
  tailSize?: number;
}

export class TextModel {
  /** All words, most frequent first. */
  readonly words: readonly string[];
  private readonly cdf: Float64Array;
  private readonly logPool: readonly string[];
  private readonly codePool: readonly string[];

  constructor(rng: Rng, options: TextModelOptions = {}) {
    const tailSize = options.tailSize ?? TAIL_SIZE;
    const seen = new Set<string>(COMMON_WORDS);
    const words = COMMON_WORDS.filter((w) => !FUNCTION_WORDS.includes(w));
    const tailRng = rng.fork("vocabulary-tail");
    const roots = [...NOUNS, ...VERBS];
    let guard = 0;
    const target = words.length + tailSize;
    while (words.length < target && guard++ < tailSize * 50) {
      const shape = tailRng.int(3);
      const root = tailRng.pick(roots);
      const w =
        shape === 0
          ? tailRng.pick(TAIL_PREFIXES) + root
          : shape === 1
            ? root + tailRng.pick(TAIL_SUFFIXES)
            : tailRng.pick(TAIL_PREFIXES) + root + tailRng.pick(TAIL_SUFFIXES);
      if (seen.has(w)) continue;
      seen.add(w);
      words.push(w);
    }
    this.words = words;
    const cdf = new Float64Array(words.length);
    let acc = 0;
    for (let r = 0; r < words.length; r++) {
      acc += 1 / Math.pow(r + 1, ZIPF_EXPONENT);
      cdf[r] = acc;
    }
    for (let r = 0; r < words.length; r++) cdf[r] = (cdf[r] as number) / acc;
    this.cdf = cdf;

    const poolRng = rng.fork("payload-pools");
    const logs: string[] = [];
    for (let i = 0; i < 1024; i++) {
      const kind = poolRng.int(5);
      if (kind === 0) logs.push(poolRng.pick(SHELL_OUTPUT_LINES));
      else if (kind === 1)
        logs.push(
          `${poolRng.pick(FILE_PATHS)}:${poolRng.range(1, 900)}:${poolRng.range(1, 80)}: ${this.zipfWords(poolRng, 4 + poolRng.int(8))}`,
        );
      else if (kind === 2)
        logs.push(
          `2026-0${poolRng.range(1, 9)}-1${poolRng.int(10)}T0${poolRng.int(10)}:${poolRng.range(10, 59)}:${poolRng.range(10, 59)}.${poolRng.range(100, 999)}Z INFO  [${poolRng.pick(NOUNS)}] ${this.zipfWords(poolRng, 5 + poolRng.int(10))} (${poolRng.range(1, 999)}ms)`,
        );
      else if (kind === 3)
        logs.push(
          `${poolRng.pick(["WARN", "DEBUG", "TRACE"])} ${poolRng.pick(ERROR_CODES)} ${poolRng.pick(ERROR_MESSAGES)}`,
        );
      else
        logs.push(
          `  at ${poolRng.pick(VERBS)}${capitalize(poolRng.pick(NOUNS))} (${poolRng.pick(FILE_PATHS)}:${poolRng.range(1, 400)}:${poolRng.range(1, 60)})`,
        );
    }
    this.logPool = logs;
    const code: string[] = [];
    for (let i = 0; i < 512; i++) {
      const v = poolRng.pick(VERBS);
      const n = capitalize(poolRng.pick(NOUNS));
      const kind = poolRng.int(6);
      if (kind === 0) code.push(`export function ${v}${n}(input: ${n}Input): Promise<${n}> {`);
      else if (kind === 1)
        code.push(`  const ${poolRng.pick(NOUNS)} = await ${v}${n}(options.${poolRng.pick(NOUNS)});`);
      else if (kind === 2)
        code.push(
          `  if (!${poolRng.pick(NOUNS)}) throw new Error("${poolRng.pick(ERROR_MESSAGES).replace(/"/g, "'")}");`,
        );
      else if (kind === 3) code.push(`  // ${this.zipfWords(poolRng, 4 + poolRng.int(8))}`);
      else if (kind === 4) code.push(`  return { ...${poolRng.pick(NOUNS)}, updatedAt: Date.now() };`);
      else code.push("}");
    }
    this.codePool = code;
  }

  /** One word by Zipf rank (binary search over the cumulative distribution). */
  zipfWord(rng: Rng): string {
    const x = rng.next();
    let lo = 0;
    let hi = this.cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.cdf[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return this.words[lo] as string;
  }

  /**
   * `n` words: Zipf-sampled content words with some function words in between, never two function
   * words in a row ("keep request and and and merge" read as noise, not as chat).
   */
  zipfWords(rng: Rng, n: number): string {
    let out = this.zipfWord(rng);
    let glue = false;
    for (let i = 1; i < n; i++) {
      glue = !glue && i < n - 1 && rng.chance(0.3);
      out += " " + (glue ? rng.pick(FUNCTION_WORDS) : this.zipfWord(rng));
    }
    return out;
  }

  file(rng: Rng): string {
    return rng.pick(FILE_PATHS);
  }

  errorCode(rng: Rng): string {
    return rng.pick(ERROR_CODES);
  }

  command(rng: Rng): string {
    return rng.pick(COMMANDS);
  }

  /** A noun biased to the front of the list (so some nouns are common, others rare). */
  private noun(rng: Rng): string {
    return NOUNS[Math.floor(Math.pow(rng.next(), 2) * NOUNS.length)] as string;
  }

  private verb(rng: Rng): string {
    return VERBS[Math.floor(Math.pow(rng.next(), 2) * VERBS.length)] as string;
  }

  private adjective(rng: Rng): string {
    return rng.pick(ADJECTIVES);
  }

  /** One English sentence about a software project. */
  sentence(rng: Rng): string {
    switch (rng.int(12)) {
      case 0:
        return `We decided to ${this.verb(rng)} the ${this.noun(rng)} in ${this.file(rng)} instead of keeping the ${this.adjective(rng)} ${this.noun(rng)}.`;
      case 1:
        return `The ${this.noun(rng)} must ${this.verb(rng)} within ${rng.range(2, 500)} ms even when the ${this.noun(rng)} is ${this.adjective(rng)}.`;
      case 2:
        return `There is a bug in ${this.file(rng)}: the ${this.noun(rng)} is ${this.adjective(rng)} after every ${this.noun(rng)} update, and we see ${this.errorCode(rng)}.`;
      case 3:
        return `Running \`${this.command(rng)}\` fails with ${this.errorCode(rng)}: ${rng.pick(ERROR_MESSAGES)}.`;
      case 4:
        return `Can you ${this.verb(rng)} the ${this.noun(rng)} so the ${this.noun(rng)} stays ${this.adjective(rng)}?`;
      case 5:
        return `Next I will ${this.verb(rng)} ${this.file(rng)} and then ${this.verb(rng)} the ${this.noun(rng)} behind a flag.`;
      case 6:
        return `Requirement: the ${this.noun(rng)} should ${this.verb(rng)} the ${this.noun(rng)} without blocking the ${this.noun(rng)}.`;
      case 7:
        return `I think the ${this.adjective(rng)} ${this.noun(rng)} comes from ${this.file(rng)}, so ${this.zipfWords(rng, 4 + rng.int(5))}.`;
      case 8:
        return `Decision: keep ${this.zipfWords(rng, 2 + rng.int(3))} and ${this.verb(rng)} the ${this.noun(rng)} later.`;
      default: {
        const n = 5 + rng.int(10);
        return capitalize(this.zipfWords(rng, n)) + (rng.chance(0.15) ? "?" : ".");
      }
    }
  }

  multilingualSentence(rng: Rng): string {
    return rng.pick(MULTILINGUAL_SENTENCES).replace("{file}", this.file(rng));
  }

  /** `n` sentences; with probability `multilingual` one of them is non-English. */
  paragraph(rng: Rng, n: number, multilingual = 0.1): string {
    const parts: string[] = [];
    for (let i = 0; i < n; i++) parts.push(this.sentence(rng));
    if (rng.chance(multilingual)) parts.splice(rng.int(parts.length + 1), 0, this.multilingualSentence(rng));
    return parts.join(" ");
  }

  /** A typed user prompt (1–4 sentences). */
  userPrompt(rng: Rng): string {
    return this.paragraph(rng, 1 + rng.int(4));
  }

  /** An assistant reply in prose, sometimes with a bullet list or inline code. */
  assistantReply(rng: Rng): string {
    const head = this.paragraph(rng, 1 + rng.int(3));
    if (rng.chance(0.3)) {
      const items: string[] = [];
      const k = 2 + rng.int(3);
      for (let i = 0; i < k; i++) items.push(`- ${this.sentence(rng)}`);
      return `${head}\n\n${items.join("\n")}`;
    }
    if (rng.chance(0.2))
      return `${head}\n\nI changed \`${this.file(rng)}\` and ran \`${this.command(rng)}\`.`;
    return head;
  }

  /** Model reasoning prose (callers add a canary; it must never surface). */
  thinking(rng: Rng): string {
    return `Let me think about this. ${this.paragraph(rng, 2 + rng.int(3), 0)}`;
  }

  /** Log/shell-like output of roughly `approxChars` characters. */
  toolOutput(rng: Rng, approxChars: number): string {
    const lines: string[] = [];
    let size = 0;
    let i = rng.int(this.logPool.length);
    while (size < approxChars) {
      const line = this.logPool[i % this.logPool.length] as string;
      lines.push(line);
      size += line.length + 1;
      i += 1 + (rng.u32() & 3);
    }
    return lines.join("\n");
  }

  /** Code-like file content of roughly `approxChars` characters. */
  codeBody(rng: Rng, approxChars: number): string {
    const lines: string[] = [
      `// ${this.zipfWords(rng, 6)}`,
      `import { ${this.noun(rng)} } from "./${this.noun(rng)}.js";`,
      "",
    ];
    let size = 60;
    let i = rng.int(this.codePool.length);
    while (size < approxChars) {
      const line = this.codePool[i % this.codePool.length] as string;
      lines.push(line);
      size += line.length + 1;
      i += 1 + (rng.u32() & 7);
    }
    return lines.join("\n");
  }

  /** A short, clearly machine-written summary of earlier work (compaction summaries). */
  summary(rng: Rng): string {
    const items: string[] = [];
    const k = 3 + rng.int(3);
    for (let i = 0; i < k; i++) items.push(`- ${this.sentence(rng)}`);
    return `Summary of the conversation so far:\n${items.join("\n")}`;
  }

  /** A 3–7 word session/chat title. */
  title(rng: Rng): string {
    const kind = rng.int(4);
    if (kind === 0) return `${capitalize(this.verb(rng))} ${this.noun(rng)} in ${this.file(rng)}`;
    if (kind === 1) return `Fix ${this.errorCode(rng)} in ${this.noun(rng)} ${this.noun(rng)}`;
    if (kind === 2) return `${capitalize(this.adjective(rng))} ${this.noun(rng)} investigation`;
    return capitalize(this.zipfWords(rng, 3 + rng.int(3)));
  }
}

/** Inserts `marker` as its own line at a random line boundary of `text`. */
export function insertLine(rng: Rng, text: string, marker: string): string {
  const positions: number[] = [0];
  for (let i = text.indexOf("\n"); i !== -1 && positions.length < 64; i = text.indexOf("\n", i + 1))
    positions.push(i + 1);
  const at = rng.pick(positions);
  return `${text.slice(0, at)}${marker}\n${text.slice(at)}`;
}
