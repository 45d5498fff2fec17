import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  fakeSecrets,
  randomChars,
  seededRandom,
  type FakeSecret,
} from "../../../test/helpers/fake-secrets.js";
import type { TranscriptTurn } from "../../core/transcript.js";
import { projectChatMessage, projectTranscriptTurnBoth, type ProjectionMode } from "../index.js";
import { looksRandom } from "./index.js";

/**
 * Generated secrets of every detector's kind, planted in random text in every place a turn can
 * hold text — a prompt, assistant prose, a shell command, a tool's output (short, or long enough
 * to be cut into a head-and-tail preview), a file an agent wrote, a Dyad message — never come
 * out of a search or read projection.
 */
const WORDS = [
  "deploy",
  "the",
  "config",
  "token",
  "rotate",
  "password",
  "key",
  "staging",
  "build",
  "error:",
  "src/index.ts",
  "v1.2.3",
  "=",
  ":",
  "{",
  "}",
  "—",
  "déjà",
  "検索",
  "0xdeadbeef",
  "--flag",
  "$HOME",
  "https://example.com/docs",
  "user@example.com",
  "\n",
  "\n\n",
  "  ",
  "\t",
  "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
];
/** What stands right before and after a secret in real text. */
const EDGES = [" ", "\n", "\t", "(", ")", ", ", "; ", "'", '"', "`", "<", ">", " = ", ": "];

const prose = fc.array(fc.constantFrom(...WORDS), { maxLength: 60 }).map((w) => w.join(" "));

/** Text with secrets (each one's whole context, e.g. `DB_PASSWORD=…`) planted between words. */
const planted = (secrets: FakeSecret[]) =>
  fc
    .tuple(
      fc.array(fc.tuple(prose, fc.constantFrom(...EDGES), fc.constantFrom(...EDGES)), {
        minLength: secrets.length,
        maxLength: secrets.length,
      }),
      prose,
    )
    .map(([parts, tail]) => parts.map(([p, a, b], i) => `${p}${a}${secrets[i]!.text}${b}`).join("") + tail);

/** A handful of fake secrets from a seed, plus a bare random token (the high-entropy catch-all). */
const secretSet = fc
  .tuple(
    fc.integer({ min: 1, max: 1 << 30 }),
    fc.integer({ min: 1, max: 4 }),
    fc.integer({ min: 32, max: 80 }),
  )
  .map(([seed, count, tokenLength]) => {
    const all = fakeSecrets(seed);
    // Another stream than fakeSecrets' own: a token must not repeat another secret's characters.
    const random = seededRandom(seed ^ 0x5bd1e995);
    const picked = Array.from({ length: count }, () => all[Math.floor(random() * all.length)]!);
    // A token past the documented threshold (entropy.ts; its miss rate is measured in redact.test.ts).
    let token = "";
    do
      token = randomChars(
        random,
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
        tokenLength,
      );
    while (!looksRandom(token));
    const entropy: FakeSecret = { detector: "high-entropy", text: token, secret: token };
    return [...picked, entropy];
  });

/** Filler that pushes a planted secret into a long output's tail, past the middle it drops. */
const LONG_FILLER = "compiling module ok\n".repeat(400);

const turns = (text: string): TranscriptTurn[] => [
  { role: "user", blocks: [{ type: "text", text }], isCompactionSummary: false },
  { role: "assistant", blocks: [{ type: "text", text }], isCompactionSummary: false },
  {
    role: "assistant",
    blocks: [{ type: "tool_call", name: "Bash", input: { command: text.replace(/\n/g, " ") } }],
    isCompactionSummary: false,
  },
  {
    role: "tool",
    blocks: [
      { type: "tool_call", name: "Bash", input: { command: "env" } },
      { type: "tool_result", name: "Bash", output: { stdout: text, stderr: "" } },
    ],
    isCompactionSummary: false,
  },
  {
    role: "tool",
    blocks: [
      { type: "tool_call", name: "Bash", input: { command: "cat .env" } },
      { type: "tool_result", name: "Bash", isError: true, exitCode: 1, output: `${LONG_FILLER}${text}` },
    ],
    isCompactionSummary: false,
  },
  {
    role: "tool",
    blocks: [
      { type: "tool_call", name: "Write", input: { file_path: "/p/.env", content: text } },
      { type: "tool_result", name: "Write", output: "File created successfully at: /p/.env" },
    ],
    isCompactionSummary: false,
  },
];

describe("redaction property: no generated secret comes out of any projection", () => {
  it("transcript turns (prompt, prose, command, tool output, written file) and Dyad messages", () => {
    fc.assert(
      fc.property(
        secretSet.chain((secrets) => fc.tuple(fc.constant(secrets), planted(secrets))),
        ([secrets, text]) => {
          const outputs: string[] = [];
          for (const turn of turns(text)) {
            const { search, read } = projectTranscriptTurnBoth(turn);
            outputs.push(search.text, read.text);
          }
          for (const mode of ["search", "read"] as ProjectionMode[])
            for (const role of ["user", "assistant"] as const)
              outputs.push(
                projectChatMessage({ role, content: text, isCompactionSummary: false }, mode).text,
              );
          for (const out of outputs)
            for (const s of secrets) expect(out.includes(s.secret), `${s.detector}: ${s.secret}`).toBe(false);
        },
      ),
      { numRuns: 150 },
    );
  });
});
