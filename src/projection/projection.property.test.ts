import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TranscriptBlock, TranscriptTurn } from "../core/transcript.js";
import {
  projectChatMessage,
  projectTranscriptTurn,
  projectTranscriptTurnBoth,
  type ProjectionMode,
} from "./index.js";
import { transcriptTurnPass } from "./transcript-turn.js";
import { searchTextFromRead } from "./search-text.js";

/**
 * Tag soup with a secret marker in every place the projection must never show: every payload
 * body, think body and unknown-tag body (wherever it is nested), and every non-allowlisted
 * attribute value. The marker never appears in a search or read projection.
 *
 * The generator builds a tree and renders it with malformations: unclosed tags, missing `>`,
 * wrong-case and near-miss closes, nested and interleaved tags, entity-escaped subtrees (named,
 * numeric, or brackets-only like Dyad's escapeXmlContent; up to three levels), single-quoted / unquoted / spaced attributes, `>` and `<` and
 * quotes inside attribute values, and prose noise full of `<`, `&`, entities and tag-like text.
 * Noise never contains an exact raw closing tag of a candidate name: that would be a real close,
 * so text after it is not "inside" the body by any parser's reading.
 */

const MARK = "Qx9SECRET9xQ";
const MODES: ProjectionMode[] = ["search", "read"];

const KEEP_TAGS = [
  "dyad-chat-summary",
  "dyad-compaction",
  "dyad-write-plan",
  "dyad-exit-plan",
  "dyad-questionnaire",
  "dyad-app-blueprint",
  "dyad-security-finding",
  "dyad-status",
  "dyad-step-limit",
  "dyad-output",
];
const PAYLOAD_TAGS = [
  "dyad-write",
  "dyad-search-replace",
  "dyad-edit",
  "dyad-generate-test",
  "dyad-rename",
  "dyad-execute-sql",
  "dyad-grep",
  "dyad-code-search",
  "dyad-web-crawl",
  "dyad-read-logs",
  "dyad-git",
  "dyad-mcp-tool-call",
  "dyad-mcp-tool-result",
  "dyad-database-schema",
  "dyad-read",
  "dyad-command",
  "dyad-script",
  "dyad-subagent",
];
const DROP_TAGS = ["think", "thinking", "dyad-search-chats", "dyad-read-chat", "dyad-explore-chat-history"];
const UNKNOWN_TAGS = [
  "dyad-future-tool",
  "dyad-x",
  "dyad",
  "dyad_custom",
  "dyad-status-extra",
  "dyad-writer",
];
const KEEP_SET = new Set(KEEP_TAGS);

/** Every attribute name that may legitimately be shown somewhere (metadata, read status, headers). */
const SHOWN_ATTRIBUTES = [
  "path",
  "from",
  "to",
  "query",
  "description",
  "title",
  "type",
  "message",
  "notes",
  "level",
  "app-name",
  "template",
  "summary",
  "server",
  "tool",
  "url",
  "name",
  "state",
  "is-error",
  "count",
];
/** Attribute names never shown: the marker goes into these. */
const HIDDEN_ATTRIBUTES = [
  "secret",
  "data",
  "content",
  "call-id",
  "args",
  "Path",
  "x-body",
  "internal",
  "PATH",
];

const NOISE = [
  "hello",
  "world",
  "KEEP",
  " ",
  "  ",
  "\n",
  "\n\n\n",
  "\t",
  "<",
  ">",
  "&",
  '"',
  "'",
  "/",
  "=",
  "<div>",
  "</div>",
  "<b>x</b>",
  "a < b",
  "c > d",
  "&amp;",
  "&lt;",
  "&gt;",
  "&quot;",
  "&#60;",
  "&#x3c;",
  "&lt;div&gt;",
  "&amp;lt;",
  "</dyad-write >",
  "</ dyad-write>",
  "</dyad-writ>",
  "<dyad-write",
  "< dyad-write>",
  "&lt;/dyad-write&gt;",
  "&amp;lt;/think&amp;gt;",
  "&lt;think&gt;",
  "<!-- x -->",
  "<![CDATA[",
  "]]>",
  "```",
  "/>",
  "é",
  "漢",
  "😀",
  "data:image/png;base64,",
];

type Attr = { name: string; value: string; hidden: boolean; form: "double" | "single" | "bare" | "spaced" };
type OpenStyle = "normal" | "self" | "unterminated" | "upper" | "mixed" | "newlines";
type CloseStyle = "normal" | "missing" | "upper" | "space" | "wrong" | "half";
type Escape = 0 | 1 | 2 | 3;
type EscapeStyle = "named" | "numeric" | "content";
type Node =
  | { kind: "noise"; text: string }
  | { kind: "slot" }
  | {
      kind: "tag";
      name: string;
      attrs: Attr[];
      open: OpenStyle;
      close: CloseStyle;
      escape: Escape;
      style: EscapeStyle;
      children: Node[];
    }
  | { kind: "interleave"; a: string; b: string; x: Node[]; y: Node[]; z: Node[] };

const valueChar = fc.constantFrom(
  "a",
  "b",
  "Z",
  "1",
  " ",
  ">",
  "<",
  "'",
  "&",
  "/",
  "-",
  "&lt;",
  "&gt;",
  "&quot;",
  "&amp;",
  "\n",
  "é",
  "<dyad-write>",
  "</dyad-write>",
  "</dyad-status>",
  "<think>",
  "&lt;/think&gt;",
);
/**
 * A raw `"` then `>` in a value legitimately ends the value and then the tag (`title="a" >`), so
 * what follows is a body by any parser's reading, not an attribute: values never have a `>`
 * after a `"`. Values never contain `=` either, so they cannot forge `name="` for a shown name.
 */
function noGtAfterQuote(v: string, quote = '"'): string {
  const q = v.indexOf(quote);
  return q < 0 ? v : v.slice(0, q) + v.slice(q).replace(/>/g, "");
}
const shownValue = fc
  .array(fc.oneof(valueChar, fc.constant('"')), { maxLength: 8 })
  .map((a) => noGtAfterQuote(a.join("")));
const hiddenValue = fc
  .tuple(
    fc.array(valueChar, { maxLength: 5 }),
    fc.array(fc.oneof(valueChar, fc.constant('"')), { maxLength: 5 }),
  )
  .map(([before, after]) => noGtAfterQuote(`${before.join("")}${MARK}${after.join("")}`));
const form = fc.constantFrom<Attr["form"]>("double", "double", "double", "single", "bare", "spaced");
const attr: fc.Arbitrary<Attr> = fc.oneof(
  fc.record({
    name: fc.constantFrom(...SHOWN_ATTRIBUTES),
    value: shownValue,
    hidden: fc.constant(false),
    form,
  }),
  fc.record({
    name: fc.constantFrom(...HIDDEN_ATTRIBUTES),
    value: hiddenValue,
    hidden: fc.constant(true),
    form,
  }),
);
const tagName = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...KEEP_TAGS) },
  { weight: 4, arbitrary: fc.constantFrom(...PAYLOAD_TAGS) },
  { weight: 2, arbitrary: fc.constantFrom(...DROP_TAGS) },
  { weight: 1, arbitrary: fc.constantFrom(...UNKNOWN_TAGS) },
);
const noise = fc
  .array(fc.constantFrom(...NOISE), { minLength: 1, maxLength: 4 })
  .map((a) => ({ kind: "noise" as const, text: a.join("") }));

/* eslint-disable @typescript-eslint/no-unnecessary-type-assertion -- tsc needs these to type letrec's ties; the rule's own suggestion (type arguments) does not compile */
const { nodes } = fc.letrec<{ node: Node; nodes: Node[] }>((tie) => ({
  node: fc.oneof(
    {
      depthSize: process.env.PROJECTION_PROPERTY_DEPTH === "medium" ? "medium" : "small",
      withCrossShrink: true,
    },
    { weight: 4, arbitrary: noise },
    { weight: 2, arbitrary: fc.constant({ kind: "slot" as const }) },
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant("tag" as const),
        name: tagName,
        attrs: fc.array(attr, { maxLength: 4 }),
        open: fc.constantFrom<OpenStyle>(
          "normal",
          "normal",
          "normal",
          "normal",
          "normal",
          "normal",
          "self",
          "unterminated",
          "upper",
          "mixed",
          "newlines",
        ),
        close: fc.constantFrom<CloseStyle>(
          "normal",
          "normal",
          "normal",
          "normal",
          "normal",
          "missing",
          "upper",
          "space",
          "wrong",
          "half",
        ),
        escape: fc.constantFrom<Escape>(0, 0, 0, 0, 0, 1, 2, 3),
        style: fc.constantFrom<EscapeStyle>("named", "numeric", "content"),
        children: tie("nodes") as fc.Arbitrary<Node[]>,
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("interleave" as const),
        a: tagName,
        b: tagName,
        x: tie("nodes") as fc.Arbitrary<Node[]>,
        y: tie("nodes") as fc.Arbitrary<Node[]>,
        z: tie("nodes") as fc.Arbitrary<Node[]>,
      }),
    },
  ),
  nodes: fc.array(tie("node") as fc.Arbitrary<Node>, { maxLength: 4 }),
}));
/* eslint-enable @typescript-eslint/no-unnecessary-type-assertion */

/**
 * Renders one attribute. Quote characters inside values are generated freely, but a raw quote
 * of the value's own kind genuinely ends the value (and shifts how everything after it pairs
 * up), so it appears only in the last attribute; a bare value ends at a blank, quote or `>`.
 */
function renderAttr(a: Attr, last: boolean): string {
  const own = (quote: string) => (last ? a.value : a.value.split(quote).join(""));
  switch (a.form) {
    case "double":
      return ` ${a.name}="${own('"')}"`;
    case "single":
      return ` ${a.name}='${noGtAfterQuote(own("'").replace(/"/g, '"'), "'")}'`;
    case "bare":
      return ` ${a.name}=${a.value.replace(/[\s"'<>]/g, "")}`;
    case "spaced":
      return ` ${a.name} = "${own('"')}"`;
  }
}

/** XML escaping: all of `& < > "` by name or number, or only `& < >` like Dyad's escapeXmlContent. */
function escapeOnce(s: string, style: EscapeStyle): string {
  const esc = s.replace(/&/g, style === "numeric" ? "&#38;" : "&amp;");
  if (style === "numeric") return esc.replace(/</g, "&#60;").replace(/>/g, "&#62;").replace(/"/g, "&#34;");
  const brackets = esc.replace(/</g, "&lt;").replace(/>/g, "&gt;");
  return style === "content" ? brackets : brackets.replace(/"/g, "&quot;");
}

const isKeep = (name: string) => KEEP_SET.has(name.toLowerCase());

/** Renders nodes; `hidden` means "inside a body the projection must omit". */
function render(list: Node[], hidden: boolean, level: number): string {
  return list.map((n) => renderNode(n, hidden, level)).join("");
}

function renderNode(n: Node, hidden: boolean, level: number): string {
  switch (n.kind) {
    case "noise":
      return n.text;
    case "slot":
      return hidden ? ` ${MARK} ` : " ";
    case "interleave": {
      const ha = hidden || !isKeep(n.a);
      const hb = hidden || !isKeep(n.b);
      return (
        `<${n.a}>${ha ? MARK : ""}${render(n.x, ha, level)}<${n.b}>${ha || hb ? MARK : ""}${render(n.y, ha || hb, level)}` +
        `</${n.a}>${hb ? MARK : ""}${render(n.z, hb, level)}</${n.b}>`
      );
    }
    case "tag": {
      // The projection recognises markup escaped up to three times (MAX_ESCAPE_LEVEL).
      const escape = level + n.escape <= 3 ? n.escape : 0;
      const name =
        n.open === "upper"
          ? n.name.toUpperCase()
          : n.open === "mixed"
            ? Array.from(n.name, (ch, k) => (k % 2 ? ch.toUpperCase() : ch)).join("")
            : n.name;
      const inner = hidden || !isKeep(n.name);
      const attrs = n.attrs
        .map((a, k) => renderAttr(a, k === n.attrs.length - 1))
        .join(n.open === "newlines" ? "\n" : "");
      let s: string;
      if (n.open === "self") {
        s = `<${name}${attrs}/>`;
      } else {
        const open =
          n.open === "unterminated"
            ? `<${name}${attrs} `
            : n.open === "newlines"
              ? `<${name}\n${attrs}\n>`
              : `<${name}${attrs}>`;
        const body = `${inner ? MARK : ""}${render(n.children, inner, level + escape)}`;
        const close = {
          normal: `</${n.name}>`,
          missing: "",
          upper: `</${n.name.toUpperCase()}>`,
          space: `</${n.name} >`,
          // A close of a name no tag here has (a wrong name that is some ancestor's real name
          // would be that ancestor's close).
          wrong: "</dyad-nomatch>",
          half: `</${n.name.slice(0, -1)}`,
        }[n.close];
        s = open + body + close;
      }
      for (let k = 0; k < escape; k++) s = escapeOnce(s, n.style);
      return s;
    }
  }
}

describe("property: secret markers never leak", () => {
  it("assistant tag soup (10,000 inputs, search and read)", () => {
    let nonEmpty = 0;
    let withMarker = 0;
    fc.assert(
      fc.property(nodes, (tree) => {
        const content = render(tree, false, 0);
        if (content.includes(MARK)) withMarker++;
        for (const mode of MODES) {
          const r = projectChatMessage({ role: "assistant", content, isCompactionSummary: false }, mode);
          if (r.text.toLowerCase().includes(MARK.toLowerCase())) {
            throw new Error(
              `marker leaked in ${mode} mode\ncontent: ${JSON.stringify(content)}\ntext: ${JSON.stringify(r.text)}`,
            );
          }
          if (mode === "search" && r.text !== "") nonEmpty++;
        }
      }),
      { numRuns: 10_000, seed: 20_260_930 },
    );
    // The generator is not degenerate: most inputs carry a marker and most projections keep text.
    expect(withMarker).toBeGreaterThan(5_000);
    expect(nonEmpty).toBeGreaterThan(5_000);
  });

  it("assistant tag soup with a random seed (2,000 inputs)", () => {
    fc.assert(
      fc.property(nodes, (tree) => {
        const content = render(tree, false, 0);
        for (const mode of MODES) {
          const r = projectChatMessage({ role: "assistant", content, isCompactionSummary: false }, mode);
          expect(r.text).not.toContain(MARK);
        }
      }),
      // PROJECTION_PROPERTY_RUNS=500000 for a long hunt.
      { numRuns: Number(process.env.PROJECTION_PROPERTY_RUNS ?? 2_000) },
    );
  });

  const safeText = fc
    .array(fc.constantFrom("fix", "the", "login", "bug", " ", "\n", "<", "&amp;", "src/a.ts"), {
      minLength: 1,
      maxLength: 6,
    })
    .map((a) => a.join(""));
  const safeLine = fc
    .array(fc.constantFrom("error:", "cannot", "find", "module", "x", "42"), { minLength: 1, maxLength: 5 })
    .map((a) => a.join(" "));
  // Tool output is previewed (head and tail), so its text carries no marker; what sits beside it
  // (image data, data-URL payloads, keys no preview reads) does.
  const markedOutput = safeLine.map((line) => `${line}\noutput body`);

  const block: fc.Arbitrary<TranscriptBlock> = fc.oneof(
    safeText.map((text) => ({ type: "text" as const, text })),
    safeText.map((text) => ({
      type: "text" as const,
      text: `${text}<system-reminder>${MARK}</system-reminder>${text}`,
    })),
    safeText.map((text) => ({ type: "text" as const, text: `${text}<environment_context>${MARK}` })),
    safeText.map((text) => ({
      type: "text" as const,
      text: `${text} data:image/png;base64,AAAA${MARK}BBBB ${text}`,
    })),
    fc.constant({ type: "thinking" as const, text: `${MARK} reasoning` }),
    fc.record({
      type: fc.constant("tool_call" as const),
      name: fc.constantFrom("Bash", "Edit", "Write", "Task", "apply_patch", "update_plan"),
      input: fc.oneof(
        // Written content is previewed when the call's result follows it; old strings never are.
        fc.record({
          file_path: fc.constant("src/a.ts"),
          content: fc.constant("written content"),
          old_string: fc.constant(MARK),
          new_string: fc.constant("new text"),
          originalFile: fc.constant(MARK),
        }),
        fc.record({ command: fc.constant(`npm test\n${MARK}`), description: fc.constant("run tests") }),
        fc.record({ description: fc.constant("explore"), prompt: fc.constant(MARK) }),
        fc.constant(
          `*** Begin Patch\n*** Update File: src/b.ts\n ${MARK}\n-${MARK}\n+added line\n*** End Patch`,
        ),
        fc.constant(JSON.stringify({ plan: [{ step: MARK }] })),
        fc.constant(JSON.stringify({ command: ["bash", "-lc", `echo ok\n${MARK}`] })),
      ),
    }),
    fc.record({
      type: fc.constant("tool_result" as const),
      name: fc.option(fc.constantFrom("Bash", "Read"), { nil: undefined }),
      isError: fc.option(fc.boolean(), { nil: undefined }),
      exitCode: fc.option(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 255 })), { nil: undefined }),
      output: fc.oneof(
        markedOutput,
        markedOutput.map((text) => [
          { type: "text", text },
          { type: "image", data: MARK },
        ]),
        markedOutput.map((text) => ({ stderr: text, stdout: text, data: MARK })),
        markedOutput.map((text) => ({
          content: [
            { type: "input_image", image_url: `data:image/png;base64,${MARK}` },
            { type: "input_text", text },
          ],
        })),
      ),
    }),
    fc.constant({ type: "image" as const, mediaType: "image/png", data: MARK } as TranscriptBlock),
    safeText.map((label) => ({ type: "context" as const, label, text: MARK })),
  );
  const turnArb = fc.record({
    role: fc.constantFrom<TranscriptTurn["role"]>("user", "assistant", "system", "context", "tool"),
    blocks: fc.array(block, { maxLength: 6 }),
    isCompactionSummary: fc.constant(false),
  });

  it("transcript turns (10,000 inputs, search and read)", () => {
    fc.assert(
      fc.property(turnArb, (t) => {
        // A context turn's text is injected context; in other roles plain text is kept, so only
        // context turns may carry the marker in plain text blocks.
        // Injected spans are stripped from user and system text only; assistant text is kept as
        // written, so there they carry no marker.
        const blocks = t.blocks.map((b) => {
          if (b.type !== "text") return b;
          if (t.role === "context") return { ...b, text: `${b.text}${MARK}` };
          if (t.role === "assistant" && /<(system-reminder|environment_context)>/.test(b.text)) {
            return { ...b, text: b.text.split(MARK).join("") };
          }
          return b;
        });
        const turn: TranscriptTurn = { ...t, blocks };
        for (const mode of MODES) {
          const r = projectTranscriptTurn(turn, mode);
          if (r.text.includes(MARK)) {
            throw new Error(
              `marker leaked in ${mode} mode\nturn: ${JSON.stringify(turn)}\ntext: ${JSON.stringify(r.text)}`,
            );
          }
        }
      }),
      { numRuns: 10_000, seed: 42 },
    );
  });

  it("a search text derived from the read one holds the words of a search pass (2,000 inputs, across the search bound)", () => {
    const long = fc
      .tuple(fc.integer({ min: 1, max: 5_000 }), fc.constantFrom("héron ", "検索結果に古い ", "Reactの"))
      .map(([n, word]) => ({ type: "text" as const, text: word.repeat(n) }));
    // Output long enough for a head-and-tail preview, whose omitted-lines marker is read-only.
    const longOutput = fc
      .tuple(fc.integer({ min: 20, max: 1_500 }), fc.constantFrom("", "\n", "  \n\n"))
      .map(([n, gap]) => ({
        type: "tool_result" as const,
        name: "Bash",
        output: Array.from(
          { length: n },
          (_, i) => `line ${i} of the build log${i % 7 === 0 ? gap : ""}`,
        ).join("\n"),
      }));
    // Content lines shaped like the read-only ones (LoCoMo writes image captions as `[image: …]`).
    const shaped = fc
      .constantFrom("[image: a photo of a dog]", "[context]", "[result: deploy ok]", "[… 3 lines omitted …]")
      .map((line) => ({ type: "text" as const, text: `before\n${line}\nafter` }));
    const words = (text: string) => text.match(/[\p{L}\p{N}]+/gu) ?? [];
    fc.assert(
      fc.property(
        fc.record({
          role: turnArb.map((t) => t.role),
          blocks: fc.array(fc.oneof(block, long, longOutput, shaped), { maxLength: 6 }),
          isCompactionSummary: fc.boolean(),
        }),
        (turn) => {
          const both = projectTranscriptTurnBoth(turn);
          expect(both.search).toEqual(projectTranscriptTurn(turn, "search"));
          expect(both.read).toEqual(transcriptTurnPass(turn, "read"));
          const pass = transcriptTurnPass(turn, "search");
          expect(words(both.search.text)).toEqual(words(pass.text));
          expect(both.search.truncated).toBe(pass.truncated);
          expect(both.search.indexable).toBe(pass.indexable);
          // A writer stores a derived search text as '' unchecked: a reader must get it back.
          if (both.searchFromRead) expect(searchTextFromRead(both.read.text)).toBe(both.search.text);
        },
      ),
      { numRuns: 2_000, seed: 7 },
    );
  });
});
