import type { Rng } from "./rng.js";
import { ZipfSampler } from "./zipf-sampler.js";

/**
 * The Zipf corpus's vocabulary: a quarter of a million word types in rank order, the way chat
 * text about code spreads its words. English words lead (function words first), software words
 * join them in the head, and the long tail is generated: pronounceable made-up words and
 * identifiers (file paths, snake_case, camelCase, kebab-case, hex ids) whose parts are themselves
 * vocabulary words, as real identifiers share "user", "id" and "config". No type has a digit
 * beside a letter outside [a-f], so the planted needle tokens (zipf-needles.ts) never collide.
 */

/** Roughly the most frequent English words of conversation, most frequent first. */
const ENGLISH = `the to and of a i it you is that in this for be on with not we can so if do but
are have as at or just what should was will there use like one get it's need from here then an
now all would let me my they which also don't think when make see how some no out up more about
only yes any other because want right still try way sure into new first check why could where
thing time actually maybe something same again instead good well know look even really does
over after need work problem back both without then much each before very already next case
change same these those their them our us than while since though through until between
another many most few less least better best else point part place fine looks seems says said
thanks please okay ok great nice wrong true false done doing made makes making used using want
wanted keep kept give gave take took find found tell told call called show shown turn run start
end stop left long short high low big small old last early late clear simple hard easy full
empty whole half real same different similar exact likely possible able free open close quick
slow fast ready safe usual common main same own able other every each either neither none
someone anyone everyone nothing anything everything somewhere later soon once twice always never
often sometimes usually probably definitely exactly quite rather enough almost nearly around
above below inside outside within across along behind beyond during except against toward
because although unless whether however therefore otherwise meanwhile anyway perhaps indeed
idea reason question answer example detail note step way kind sort type level side line number
word name list order group set state result effect cause issue option choice plan goal task
person people user team day week month year today tomorrow yesterday morning night hour minute
second moment while`;

/** Software words that chat with a coding agent uses as often as everyday English. */
const TECHNICAL = `file code test error function run build data fix update add config server api
request response query index cache session token command output input path module import export
package version branch commit merge deploy log debug script string object array class method
return message event handler client service database table column field record schema migration
model component props render hook route page view style layout button form default flag key
value timeout retry worker queue job batch stream buffer parser format json yaml sql http url
endpoint auth login password permission role admin account payment report dashboard node process
thread memory disk network socket connection pool limit size release production staging
environment secret variable env docker container image cluster pipeline workflow action runner
artifact hash checksum signature archive backup restore snapshot replica shard partition offset
cursor checkpoint transaction rollback constraint trigger tokenizer search ranking filter scope
project workspace folder directory repo repository lint compile compiler typescript javascript
python rust golang npm yarn vitest jest pytest cargo git github pr review ci warning exception
stack trace undefined null async await promise callback loop regex pattern match parse serialize
encode decode encrypt key map fetch load save write read open init setup mock stub fixture spec
assert expect describe src lib dist tests docs readme changelog license main feature hotfix tag
refactor rename remove delete patch diff hunk lockfile dependency dependencies upgrade bump
install uninstall plugin extension middleware router controller resolver adapter provider
context store reducer selector dispatch effect signal mutex lock semaphore channel goroutine
struct enum trait interface generic template macro closure lambda iterator generator decorator
annotation attribute property getter setter constructor instance singleton factory builder
wrapper helper util utils common shared core internal public private static const let var
boolean integer float double char bytes utf unicode ascii newline whitespace indent tab space
terminal shell bash zsh stdout stderr stdin pid signal exit status code latency throughput
benchmark profile flame heap gc allocation leak crash panic segfault overflow underflow`;

/** English words dropped by search as stopwords or too generic to carry a query's meaning. */
export const ZIPF_FUNCTION_WORDS: ReadonlySet<string> = new Set(
  `the to and of a i it you is that in this for be on with not we can so if do but are have as at or
  just what should was will there an now all would let me my they which also don't if when how some
  no out up more about only any other because into then than these those their them our us it's
  while since though through until between each both very much many most few less here where why
  could does over after before`.split(/\s+/),
);

const ONSETS =
  "b bl br c ch cl cr d dr f fl fr g gl gr h j k l m n p pl pr qu r s sc sh sk sl sm sn sp st str t th tr v w z".split(
    " ",
  );
const VOWELS = "a e i o u a e i o ai ea ee oo ou io ia".split(" ");
const CODAS = ["", "", "", "n", "r", "l", "s", "t", "nd", "st", "rk", "m", "x", "ng", "ck", "ll", "rn", "sh"];
const DIR_ROOTS = [
  "src",
  "src",
  "src",
  "lib",
  "packages",
  "app",
  "internal",
  "cmd",
  "tests",
  "scripts",
  "crates",
];
const EXTENSIONS = "ts ts ts tsx js py py go rs md json yaml sql sh css toml".split(" ");

export type WordKind = "word" | "path" | "symbol" | "hex";

export interface ZipfVocabularyOptions {
  /** Word types in all (default 250,000). */
  types?: number;
  /** Zipf exponent of word frequencies (default 1.05). */
  exponent?: number;
}

const listOf = (text: string) => text.split(/\s+/).filter((w) => w.length > 0);

/** Types in the generated tail, by share: made-up words mostly, identifiers the rest. */
type TailKind = "word" | "path" | "snake" | "camel" | "kebab" | "hex";
const TAIL_MIX: readonly (readonly [TailKind, number])[] = [
  ["word", 76],
  ["path", 6],
  ["snake", 7],
  ["camel", 5],
  ["kebab", 3],
  ["hex", 3],
];

export class ZipfVocabulary {
  /** Every type, most frequent first. */
  readonly words: readonly string[];
  /** Each type's kind, by rank. */
  readonly kinds: readonly WordKind[];
  /** Draws a rank from the whole vocabulary. */
  readonly sampler: ZipfSampler;
  /** Ranks of identifiers (paths, symbols, hex ids), most frequent first, and a sampler over them. */
  readonly identifierRanks: Int32Array;
  readonly identifierSampler: ZipfSampler;

  constructor(rng: Rng, options: ZipfVocabularyOptions = {}) {
    const types = options.types ?? 250_000;
    const exponent = options.exponent ?? 1.05;
    const seen = new Set<string>();
    const words: string[] = [];
    const kinds: WordKind[] = [];
    const push = (w: string, kind: WordKind) => {
      if (seen.has(w) || words.length >= types) return;
      seen.add(w);
      words.push(w);
      kinds.push(kind);
    };

    // The head: English first (its function words carry most of any text), then both lists.
    const english = listOf(ENGLISH);
    const technical = listOf(TECHNICAL);
    let e = 0;
    let t = 0;
    while (e < 30) push(english[e++]!, "word");
    while (e < english.length || t < technical.length) {
      if (e < english.length) push(english[e++]!, "word");
      if (t < technical.length) push(technical[t++]!, "word");
    }

    const wordRng = rng.fork("zipf-words");
    const madeUp = (): string => {
      let w = "";
      const syllables = 2 + wordRng.int(wordRng.chance(0.3) ? 3 : 2);
      for (let s = 0; s < syllables; s++)
        w +=
          wordRng.pick(ONSETS) +
          wordRng.pick(VOWELS) +
          (s === syllables - 1 || wordRng.chance(0.3) ? wordRng.pick(CODAS) : "");
      return w;
    };
    // Identifier parts: the head's content words, then made-up words, the first most often.
    const parts = words.filter((w) => !ZIPF_FUNCTION_WORDS.has(w) && /^[a-z]+$/.test(w));
    const partSeen = new Set(parts);
    while (parts.length < 6000) {
      const w = madeUp();
      if (!partSeen.has(w)) {
        partSeen.add(w);
        parts.push(w);
      }
    }
    const partSampler = new ZipfSampler(parts.length, 1);
    const identRng = rng.fork("zipf-identifiers");
    const part = () => parts[partSampler.sample(identRng)]!;
    const camel = (n: number) => {
      let s = part();
      for (let i = 1; i < n; i++) {
        const p = part();
        s += p[0]!.toUpperCase() + p.slice(1);
      }
      return s;
    };
    const joined = (n: number, sep: string) => Array.from({ length: n }, part).join(sep);
    const dirs: string[] = [];
    for (let i = 0; i < 400; i++) {
      const root = identRng.pick(DIR_ROOTS);
      dirs.push(identRng.chance(0.4) ? `${root}/${part()}/${part()}` : `${root}/${part()}`);
    }
    const dirSampler = new ZipfSampler(dirs.length, 1);
    const make = (kind: TailKind): [string, WordKind] => {
      const n = 2 + identRng.int(2);
      switch (kind) {
        case "word":
          return [madeUp(), "word"];
        case "snake":
          return [joined(n, "_"), "symbol"];
        case "camel":
          return [camel(n), "symbol"];
        case "kebab":
          return [joined(n, "-"), "symbol"];
        case "hex":
          return [identRng.hex(6).slice(0, 7 + identRng.int(6)), "hex"];
        case "path": {
          const name = identRng.chance(0.5) ? part() : identRng.chance(0.5) ? joined(2, "_") : camel(2);
          return [`${dirs[dirSampler.sample(identRng)]}/${name}.${identRng.pick(EXTENSIONS)}`, "path"];
        }
      }
    };
    let guard = 0;
    while (words.length < types && guard++ < types * 20) {
      const [w, kind] = make(identRng.weighted(TAIL_MIX));
      // A hex id needs a letter and a digit to read as one (and never as a number or a word).
      if (kind === "hex" && !(/[a-f]/.test(w) && /\d/.test(w))) continue;
      push(w, kind);
    }
    this.words = words;
    this.kinds = kinds;
    this.sampler = new ZipfSampler(words.length, exponent);
    const identifiers: number[] = [];
    kinds.forEach((k, r) => {
      if (k !== "word") identifiers.push(r);
    });
    this.identifierRanks = Int32Array.from(identifiers);
    this.identifierSampler = new ZipfSampler(identifiers.length, exponent);
  }

  /** The `n` most frequent types of `kind`. */
  top(kind: WordKind, n: number): string[] {
    const out: string[] = [];
    for (let r = 0; r < this.words.length && out.length < n; r++)
      if (this.kinds[r] === kind) out.push(this.words[r]!);
    return out;
  }
}
