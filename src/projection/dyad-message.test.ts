import { describe, expect, it } from "vitest";
import {
  ATTRIBUTE_MAX_CHARS,
  SEARCH_PROJECTION_HEAD_BYTES,
  SEARCH_PROJECTION_MAX_BYTES,
  SEARCH_PROJECTION_TAIL_BYTES,
  TRUNCATION_MARKER,
  projectChatMessage,
  type ProjectionMode,
} from "./index.js";
import { utf8ByteLength } from "./utf8.js";

const MODES: ProjectionMode[] = ["search", "read"];

function assistant(content: string, mode: ProjectionMode = "search") {
  return projectChatMessage({ role: "assistant", content, isCompactionSummary: false }, mode);
}
function user(content: string, mode: ProjectionMode = "search") {
  return projectChatMessage({ role: "user", content, isCompactionSummary: false }, mode);
}

describe("projectChatMessage: user messages", () => {
  it("preserves user text, including literal Dyad-tag examples", () => {
    const r = user("How do I use <dyad-write> tags? Please fix the login form.");
    expect(r.text).toBe("How do I use <dyad-write> tags? Please fix the login form.");
    expect(r.truncated).toBe(false);
    expect(r.isCompactionSummary).toBe(false);
  });

  it("never interprets markup in user text (a pasted payload stays the user's words)", () => {
    const r = user(
      '<dyad-write path="a.ts">const pasted = "user pasted this";</dyad-write> <think>my own</think>',
    );
    expect(r.text).toContain("user pasted this");
    expect(r.text).toContain("<think>my own</think>");
  });

  it("only normalises whitespace", () => {
    expect(user("  a \t\t b\r\n\r\n\r\n\r\nc  \n d ").text).toBe("a b\n\nc\nd");
  });
});

describe("projectChatMessage: assistant prose and reasoning", () => {
  it("preserves ordinary prose", () => {
    const r = assistant("I added the **login form** and wired it to Supabase auth.\n\nNext: tests.");
    expect(r.text).toBe("I added the **login form** and wired it to Supabase auth.\n\nNext: tests.");
  });

  it("drops think bodies, keeps the prose around them", () => {
    const r = assistant("Adding the form now.\n<think>hidden reasoning</think>\nDone with the form.");
    expect(r.text).toContain("Adding the form now.");
    expect(r.text).toContain("Done with the form.");
    expect(r.text).not.toContain("hidden reasoning");
    expect(r.text).not.toContain("think");
  });

  it("drops an unclosed think body to the end", () => {
    const r = assistant("Visible.<think>reasoning that never closes SECRET");
    expect(r.text).toBe("Visible.");
  });
});

describe("projectChatMessage: payload tags keep only metadata", () => {
  it("reduces file writes to path and description", () => {
    const r = assistant(
      'Writing it.<dyad-write path="src/Login.tsx" description="Login form">const SECRET_BODY = 1;</dyad-write>Done.',
    );
    expect(r.text).toContain("[write: src/Login.tsx — Login form]");
    expect(r.text).toContain("Writing it.");
    expect(r.text).toContain("Done.");
    expect(r.text).not.toContain("SECRET_BODY");
  });

  it("keeps path/operation metadata of edits, renames, copies, deletes, dependencies and commands", () => {
    const r = assistant(
      [
        '<dyad-search-replace path="src/a.ts" description="fix import"><<<<<<< SEARCH\nOLD_CODE\n=======\nNEW_CODE\n>>>>>>> REPLACE</dyad-search-replace>',
        '<dyad-edit path="src/b.ts" description="turbo">EDIT_BODY</dyad-edit>',
        '<dyad-generate-test path="src/a.test.ts">TEST_BODY</dyad-generate-test>',
        '<dyad-rename from="src/old.ts" to="src/new.ts"></dyad-rename>',
        '<dyad-copy from="a.png" to="public/a.png" description="asset"></dyad-copy>',
        '<dyad-delete path="src/dead.ts"></dyad-delete>',
        '<dyad-add-dependency packages="zod react-hook-form"></dyad-add-dependency>',
        '<dyad-command type="rebuild"></dyad-command>',
        '<dyad-script description="count rows">SCRIPT_BODY</dyad-script>',
      ].join("\n"),
    );
    for (const kept of [
      "[search replace: src/a.ts — fix import]",
      "[edit: src/b.ts — turbo]",
      "[generate test: src/a.test.ts]",
      "[rename: src/old.ts — src/new.ts]",
      "[copy: a.png — public/a.png — asset]",
      "[delete: src/dead.ts]",
      "[add dependency: zod react-hook-form]",
      "[command: rebuild]",
      "[script: count rows]",
    ]) {
      expect(r.text).toContain(kept);
    }
    for (const secret of ["OLD_CODE", "NEW_CODE", "EDIT_BODY", "TEST_BODY", "SCRIPT_BODY"]) {
      expect(r.text).not.toContain(secret);
    }
  });

  it("omits SQL bodies but keeps the description", () => {
    const r = assistant(
      '<dyad-execute-sql description="Add users table">CREATE TABLE users (secret_col TEXT);</dyad-execute-sql>',
    );
    expect(r.text).toBe("[execute sql: Add users table]");
  });

  it("omits bulky tool output bodies but keeps the query", () => {
    const r = assistant(
      [
        '<dyad-grep query="login" include="*.ts" count="3">src/a.ts:1: SECRET_MATCH</dyad-grep>',
        '<dyad-code-search query="auth flow">FILE_LIST_SECRET</dyad-code-search>',
        '<dyad-web-search query="supabase magic link">WEB_SECRET</dyad-web-search>',
        "<dyad-web-fetch>https://example.com FETCH_SECRET</dyad-web-fetch>",
        '<dyad-read-logs type="console" level="error">LOG_SECRET</dyad-read-logs>',
        '<dyad-git operation="diff">DIFF_SECRET</dyad-git>',
        '<dyad-list-files directory="src">LIST_SECRET</dyad-list-files>',
        '<dyad-db-table-schema provider="supabase" table="users">SCHEMA_SECRET</dyad-db-table-schema>',
        '<dyad-mcp-tool-call server="gh" tool="search" call-id="1">{"ARGS_SECRET":1}</dyad-mcp-tool-call>',
        '<dyad-mcp-tool-result server="gh" tool="search" is-error="true">RESULT_SECRET</dyad-mcp-tool-result>',
        '<dyad-codebase-context files="a.ts,b.ts">CONTEXT_SECRET</dyad-codebase-context>',
        '<dyad-problem-report summary="2 problems">PROBLEM_SECRET</dyad-problem-report>',
      ].join("\n"),
    );
    expect(r.text).toContain("[grep: login]");
    expect(r.text).toContain("[code search: auth flow]");
    expect(r.text).toContain("[web search: supabase magic link]");
    expect(r.text).toContain("[web fetch]");
    expect(r.text).toContain("[read logs: console]");
    expect(r.text).toContain("[git: diff]");
    expect(r.text).toContain("[db table schema: users — supabase]");
    expect(r.text).toContain("[mcp tool call: gh — search]");
    expect(r.text).toContain("[problem report: 2 problems]");
    expect(r.text).not.toMatch(/SECRET/);
  });

  it("read mode adds concise status such as an MCP error flag, never the body", () => {
    const content =
      '<dyad-mcp-tool-result server="gh" tool="search" is-error="true">RESULT_SECRET</dyad-mcp-tool-result>' +
      '<dyad-grep query="x" count="12" state="aborted">MATCH_SECRET</dyad-grep>';
    const search = assistant(content, "search");
    const read = assistant(content, "read");
    expect(search.text).toBe("[mcp tool result: gh — search]\n[grep: x]");
    expect(read.text).toBe(
      "[mcp tool result: gh — search — is-error=true]\n[grep: x — state=aborted — count=12]",
    );
    expect(read.text).not.toContain("SECRET");
  });
});

describe("projectChatMessage: high-signal bodies are kept", () => {
  it("keeps compaction-summary bodies and flags them", () => {
    const r = projectChatMessage(
      {
        role: "assistant",
        content:
          '<dyad-compaction title="Conversation compacted" state="finished">We decided to use Supabase auth with magic links &amp; RLS.</dyad-compaction>\nThe full transcript is at .dyad/chats/1/backup.md',
        isCompactionSummary: true,
      },
      "search",
    );
    expect(r.isCompactionSummary).toBe(true);
    expect(r.text).toBe(
      "We decided to use Supabase auth with magic links & RLS.\nThe full transcript is at .dyad/chats/1/backup.md",
    );
  });

  it("keeps plans, questionnaires, blueprints, findings, status, step limit, chat summary and output", () => {
    const r = assistant(
      [
        '<dyad-write-plan title="Auth plan" summary="two steps" complete="true">1. Add auth 2. Add tests</dyad-write-plan>',
        '<dyad-exit-plan notes="approved by user"></dyad-exit-plan>',
        '<dyad-questionnaire count="1">Which provider? Answer: Supabase</dyad-questionnaire>',
        '<dyad-app-blueprint app-name="Todo" template="react">A todo app with tags</dyad-app-blueprint>',
        '<dyad-security-finding title="XSS" level="high">Unescaped output in Header</dyad-security-finding>',
        '<dyad-status title="Deploying" state="finished">Deployed to preview</dyad-status>',
        '<dyad-step-limit steps="50" limit="50">Paused after 50 steps</dyad-step-limit>',
        "<dyad-chat-summary>Login form with magic links</dyad-chat-summary>",
        '<dyad-output type="warning">Deploy skipped: shared module changed</dyad-output>',
      ].join("\n"),
    );
    for (const kept of [
      "[write plan: Auth plan — two steps]",
      "1. Add auth 2. Add tests",
      "[exit plan: approved by user]",
      "Which provider? Answer: Supabase",
      "[app blueprint: Todo — react]",
      "A todo app with tags",
      "[security finding: XSS — high]",
      "Unescaped output in Header",
      "[status: Deploying]",
      "Deployed to preview",
      "Paused after 50 steps",
      "Login form with magic links",
      "[output: warning]",
      "Deploy skipped: shared module changed",
    ]) {
      expect(r.text).toContain(kept);
    }
  });

  it("keeps concise error summaries (dyad-output message) in both modes", () => {
    for (const mode of MODES) {
      const r = assistant(
        `<dyad-output type="error" message="Tool 'write_file' failed: EACCES">stack trace line 1</dyad-output>`,
        mode,
      );
      expect(r.text).toContain("[output: error — Tool 'write_file' failed: EACCES]");
    }
  });

  it("still reduces a payload tag inside a kept body to metadata", () => {
    const r = assistant(
      '<dyad-compaction>Summary: we wrote &lt;dyad-write path="src/x.ts"&gt;ESCAPED_SECRET&lt;/dyad-write&gt; then <dyad-write path="src/y.ts">RAW_SECRET</dyad-write> and finished.</dyad-compaction>',
    );
    expect(r.text).toContain("Summary: we wrote");
    expect(r.text).toContain("and finished.");
    expect(r.text).toContain("[write: src/y.ts]");
    expect(r.text).not.toContain("SECRET");
  });
});

describe("projectChatMessage: recall's own cards are dropped", () => {
  it("drops prior dyad-search-chats / dyad-read-chat / explore-chat-history bodies and attributes", () => {
    const r = assistant(
      'Let me check.<dyad-search-chats query="auth" index-status="ready">RETRIEVED_HISTORY excerpt</dyad-search-chats>' +
        '<dyad-read-chat chat-id="3" title="Old chat">RETRIEVED_MESSAGES text</dyad-read-chat>' +
        "<dyad-explore-chat-history>SUBAGENT_REPORT</dyad-explore-chat-history>Found it.",
    );
    expect(r.text).toBe("Let me check.\nFound it.");
  });
});

describe("projectChatMessage: unknown tags fail closed", () => {
  it("omits the body of an unknown closed dyad tag, keeping allowlisted attributes", () => {
    const r = assistant(
      'Before text <dyad-future-tool path="src/f.ts" secret="HIDDEN_ATTR">HUGE_PAYLOAD</dyad-future-tool> after text',
    );
    expect(r.text).toBe("Before text\n[future tool: src/f.ts]\nafter text");
  });

  it("drops everything after an unclosed unknown tag", () => {
    const r = assistant("Intro prose <dyad-future-tool>PAYLOAD_WITHOUT_CLOSE and more");
    expect(r.text).toBe("Intro prose\n[future tool]");
  });

  it("treats upper-case and near-miss names as markup too", () => {
    const r = assistant(
      "a <DYAD-WRITE path='x'>UPPER_SECRET</DYAD-WRITE> b <dyad_thing>US_SECRET</dyad_thing> c",
    );
    expect(r.text).not.toContain("SECRET");
    expect(r.text).toContain("a");
  });

  it("does not leak the body of an unclosed known payload tag", () => {
    const r = assistant('Working on it.\n<dyad-write path="src/a.ts">UNFINISHED_BODY');
    expect(r.text).toBe("Working on it.\n[write: src/a.ts]");
  });
});

describe("projectChatMessage: malformed, incomplete, nested and escaped tags do not leak", () => {
  const cases: Array<[string, string]> = [
    ["opening tag without >", 'ok <dyad-write path="a.ts" SECRET body'],
    ["> inside an attribute value", '<dyad-write path="a>b" x="SECRET">SECRET</dyad-write>'],
    [
      "> inside an attribute of a kept-body tag",
      '<dyad-status title="a>b" secret="SECRET">SECRET</dyad-status>',
    ],
    ["nested same tag", "<dyad-write>a <dyad-write>b</dyad-write> SECRET </dyad-write> ok"],
    ["interleaved tags", "<dyad-write>a <dyad-grep>b</dyad-write> SECRET </dyad-grep> ok"],
    ["mismatched close", "<dyad-write>a </dyad-grep> SECRET </dyad-write> ok"],
    ["close with a space", "<dyad-write>a </dyad-write > SECRET </dyad-write> ok"],
    ["escaped tag", "&lt;dyad-write path=&quot;a.ts&quot;&gt;SECRET&lt;/dyad-write&gt; ok"],
    ["double-escaped tag", "&amp;lt;dyad-write&amp;gt;SECRET&amp;lt;/dyad-write&amp;gt; ok"],
    ["numeric escapes", "&#60;dyad-write&#62;SECRET&#x3C;/dyad-write&#x3E; ok"],
    ["escaped close inside a raw body", "<dyad-write>a &lt;/dyad-write&gt; SECRET</dyad-write> ok"],
    ["think inside a kept body", "<dyad-status>ok <think>SECRET</think> done</dyad-status>"],
    ["unknown tag inside a kept body", "<dyad-chat-summary>ok <dyad-x>SECRET</dyad-chat-summary> tail"],
    ["self-closing-looking quote trick", '<dyad-write a="/>SECRET</dyad-write> ok'],
    ["half-typed closing tag at the end", "<dyad-write>SECRET</dyad-wri"],
    ["tag name at the very end", "ok <dyad-write"],
    ["thinking tag", "ok <thinking>SECRET</thinking>"],
    [
      "closing tag inside a quoted attribute",
      '<dyad-write secret="</dyad-write>SECRET">SECRET</dyad-write> ok',
    ],
    [
      "closing tags inside a nested tag's attribute",
      '<dyad-write>a <dyad-x t="</dyad-write>">b</dyad-x> SECRET </dyad-write> ok',
    ],
    [
      "opening tag swallowed by a half-typed one",
      "<dyad-status <dyad-write>SECRET</dyad-status> SECRET </dyad-write> ok",
    ],
    [
      "escaped tag with a raw tag inside",
      "&lt;dyad-write&gt; a <dyad-grep>b</dyad-grep> SECRET &lt;/dyad-write&gt; ok",
    ],
    [
      "escaped tag left open inside a kept body",
      "<dyad-compaction>sum &lt;dyad-write&gt;SECRET</dyad-compaction> SECRET",
    ],
    [
      "content-escaped attributes (quotes raw)",
      '&lt;dyad-write path="a.ts" x="SECRET"&gt;SECRET&lt;/dyad-write&gt; ok',
    ],
  ];
  for (const [name, content] of cases) {
    it(name, () => {
      for (const mode of MODES) {
        const r = assistant(content, mode);
        expect(r.text, `${mode}: ${r.text}`).not.toContain("SECRET");
      }
    });
  }

  it("keeps prose that only looks like a tag", () => {
    const r = assistant("if a < b && c > d then <div>hello</div> &amp; 5 &lt; 6");
    expect(r.text).toBe("if a < b && c > d then <div>hello</div> & 5 < 6");
  });

  it("a `<` inside a quoted description does not end the tag early", () => {
    const r = assistant(
      '<dyad-write path="src/b.tsx" description="Add <Button> component">const BODY = 1;</dyad-write>Done.',
    );
    expect(r.text).toBe("[write: src/b.tsx]\nDone.");
  });

  it("escaped prose is decoded once, escaped markup is still markup", () => {
    const r = assistant(
      "Use &amp;lt;b&amp;gt; or &lt;i&gt;. &lt;dyad-write path=&quot;x.ts&quot;&gt;BODY&lt;/dyad-write&gt; end",
    );
    expect(r.text).toBe("Use &lt;b&gt; or <i>.\n[write: x.ts]\nend");
  });

  it("`/>` closes nothing: as in Dyad's parser, a dropped tag's body runs to its close or the end", () => {
    expect(assistant('<dyad-read path="src/a.ts"/> then prose').text).toBe("[read: src/a.ts]");
    expect(assistant("Sure. <think />SECRET private reasoning</think> done").text).toBe("Sure.\ndone");
    const write = assistant(
      'Writing. <dyad-write path="src/k.ts" description="d" />const SECRET = 1;</dyad-write> ok',
    );
    expect(write.text).toBe("Writing.\n[write: src/k.ts — d]\nok");
    // A kept (prose) tag's body stays either way.
    expect(assistant('<dyad-status title="t" />status body').text).toBe("[status: t]\nstatus body");
  });
});

describe("projectChatMessage: attributes", () => {
  it("keeps only allowlisted attributes, each length-capped", () => {
    const longAttr = "x".repeat(1000);
    const r = assistant(
      `<dyad-grep query="${longAttr}" internal_secret="hidden-attr" app_name="todo">body</dyad-grep>`,
    );
    expect(r.text).not.toContain("hidden-attr");
    expect(r.text).toContain("todo");
    const value = /\[grep: (x+…)/.exec(r.text)?.[1];
    expect(value).toBe(`${"x".repeat(ATTRIBUTE_MAX_CHARS)}…`);
    expect(r.text.length).toBeLessThan(ATTRIBUTE_MAX_CHARS + 50);
  });

  it("unescapes attribute values and ignores single-quoted ones", () => {
    const r = assistant(`<dyad-write path="src/a&amp;b.ts" description='SINGLE_QUOTED'>x</dyad-write>`);
    expect(r.text).toBe("[write: src/a&b.ts]");
  });
});

describe("projectChatMessage: bounds", () => {
  it("truncates pathological input deterministically, keeping head and tail", () => {
    const content = `START_MARKER ${"lorem ipsum ".repeat(5000)}END_MARKER`;
    for (const role of ["user", "assistant"] as const) {
      const first = projectChatMessage({ role, content, isCompactionSummary: false }, "search");
      const second = projectChatMessage({ role, content, isCompactionSummary: false }, "search");
      expect(first.truncated).toBe(true);
      expect(first.text).toBe(second.text);
      expect(first.text.startsWith("START_MARKER")).toBe(true);
      expect(first.text.endsWith("END_MARKER")).toBe(true);
      expect(first.text).toContain(TRUNCATION_MARKER);
      const [head, tail] = first.text.split(TRUNCATION_MARKER) as [string, string];
      expect(utf8ByteLength(head)).toBeLessThanOrEqual(SEARCH_PROJECTION_HEAD_BYTES);
      expect(utf8ByteLength(head)).toBeGreaterThan(SEARCH_PROJECTION_HEAD_BYTES - 16);
      expect(utf8ByteLength(tail)).toBeLessThanOrEqual(SEARCH_PROJECTION_TAIL_BYTES);
      expect(utf8ByteLength(tail)).toBeGreaterThan(SEARCH_PROJECTION_TAIL_BYTES - 16);
      expect(utf8ByteLength(first.text)).toBeLessThanOrEqual(SEARCH_PROJECTION_MAX_BYTES);
    }
  });

  it("does not truncate normal messages", () => {
    const r = assistant(
      `A normal reply about the login form.\n<dyad-write path="src/big.ts">${"const x = 1;\n".repeat(20000)}</dyad-write>\nDone.`,
    );
    expect(r.truncated).toBe(false);
    expect(r.text).toBe("A normal reply about the login form.\n[write: src/big.ts]\nDone.");
  });
});
