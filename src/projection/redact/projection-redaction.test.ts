import { describe, expect, it } from "vitest";
import { fakeSecrets } from "../../../test/helpers/fake-secrets.js";
import type { TranscriptTurn } from "../../core/transcript.js";
import {
  boundText,
  SEARCH_PROJECTION_HEAD_BYTES,
  SEARCH_PROJECTION_MAX_BYTES,
  TRUNCATION_MARKER,
} from "../bounds.js";
import { projectChatMessage, projectTranscriptTurnBoth } from "../index.js";
import { COMMAND_MAX_CHARS } from "../tool-summary.js";
import { compileRedaction } from "./index.js";

const SECRETS = fakeSecrets(17);

/** Every place a transcript turn or a Dyad message holds text, with `value` planted in it. */
function positions(value: string): Record<string, (mode: "search" | "read") => string> {
  const turn = (t: TranscriptTurn) => (mode: "search" | "read") => projectTranscriptTurnBoth(t)[mode].text;
  return {
    prompt: turn({
      role: "user",
      blocks: [{ type: "text", text: `please use ${value} now` }],
      isCompactionSummary: false,
    }),
    "assistant text": turn({
      role: "assistant",
      blocks: [{ type: "text", text: `I set ${value} for you.` }],
      isCompactionSummary: false,
    }),
    command: turn({
      role: "assistant",
      blocks: [
        {
          type: "tool_call",
          name: "Bash",
          input: { command: `deploy --to staging ${value.split("\n").join(" ")}` },
        },
      ],
      isCompactionSummary: false,
    }),
    "tool output": turn({
      role: "tool",
      blocks: [
        { type: "tool_call", name: "Bash", input: { command: "cat .env" } },
        {
          type: "tool_result",
          name: "Bash",
          output: { stdout: `NODE_ENV=production\n${value}\nPORT=3000`, stderr: "" },
        },
      ],
      isCompactionSummary: false,
    }),
    "error output": turn({
      role: "tool",
      blocks: [
        { type: "tool_call", name: "Bash", input: { command: "npm publish" } },
        {
          type: "tool_result",
          name: "Bash",
          isError: true,
          exitCode: 1,
          output: `npm ERR! 401 with ${value}\nat publish`,
        },
      ],
      isCompactionSummary: false,
    }),
    "file content": turn({
      role: "tool",
      blocks: [
        {
          type: "tool_call",
          name: "Write",
          input: { file_path: "/srv/app/.env", content: `# app\n${value}\n` },
        },
        { type: "tool_result", name: "Write", output: "File created successfully at: /srv/app/.env" },
      ],
      isCompactionSummary: false,
    }),
    "Dyad user message": (mode) =>
      projectChatMessage({ role: "user", content: `my key is ${value}`, isCompactionSummary: false }, mode)
        .text,
    "Dyad assistant message": (mode) =>
      projectChatMessage(
        {
          role: "assistant",
          content: `Set it:\n<dyad-output>${value}</dyad-output> done`,
          isCompactionSummary: false,
        },
        mode,
      ).text,
  };
}

describe("redaction inside the projection", () => {
  for (const s of SECRETS) {
    it(`${s.detector}: redacted in every position, in search and read text`, () => {
      for (const [where, project] of Object.entries(positions(s.text))) {
        for (const mode of ["search", "read"] as const) {
          const text = project(mode);
          expect(text, `${where} (${mode})`).toContain(`[redacted:${s.detector}]`);
          expect(text, `${where} (${mode})`).not.toContain(s.secret);
        }
      }
    });
  }

  it("names a long provider key instead of dropping it as base64", () => {
    const key = SECRETS.find((s) => s.detector === "anthropic-key")!.secret;
    expect(boundText(`ANTHROPIC_API_KEY=${key}`, "search").text).toBe(
      "ANTHROPIC_API_KEY=[redacted:anthropic-key]",
    );
    // Redaction off: the base64 filter drops it, as it always did.
    const off = compileRedaction({ enabled: false, patterns: [], allow: [] });
    expect(boundText(`ANTHROPIC_API_KEY=${key}`, "search", off).text).toBe("[base64 omitted]");
  });

  it("redacts a secret that a truncated projection's head or tail cuts, before the cut", () => {
    const token = SECRETS.find((s) => s.detector === "github-token")!.secret;
    const filler = (bytes: number) => "lorem ipsum ".repeat(Math.ceil(bytes / 12)).slice(0, bytes);
    // Across the head's final cut (12 KiB): whole in the 16 KiB the sink kept.
    const head = boundText(
      `${filler(SEARCH_PROJECTION_HEAD_BYTES - 10)} ${token} ${filler(40_000)}`,
      "search",
    );
    expect(head.truncated).toBe(true);
    expect(head.text).not.toContain(token.slice(0, 12));
    // Across the tail's start (3 KiB from the end): whole in the ring.
    const tail = boundText(`${filler(40_000)} ${token} ${filler(3 * 1024 - 20)}`, "search");
    expect(tail.text).toContain(TRUNCATION_MARKER.trim());
    expect(tail.text).not.toContain(token.slice(-12));
    expect(Buffer.byteLength(tail.text)).toBeLessThanOrEqual(SEARCH_PROJECTION_MAX_BYTES);
  });

  it("redacts a secret that a summary line's cut would split from what marks it as one", () => {
    for (const s of SECRETS) {
      // The cut falls right after the secret: a url-password loses its @host, a key its ending.
      const end = s.text.indexOf(s.secret) + s.secret.length;
      const pad = COMMAND_MAX_CHARS - end - 1;
      if (pad < 1 || s.text.includes("\n")) continue;
      const value = `${"x".repeat(pad)} ${s.text} and more`;
      const call: TranscriptTurn = {
        role: "assistant",
        blocks: [{ type: "tool_call", name: "Bash", input: { command: value, description: value } }],
        isCompactionSummary: false,
      };
      const failed: TranscriptTurn = {
        role: "tool",
        blocks: [{ type: "tool_result", name: "Bash", isError: true, exitCode: 1, output: value }],
        isCompactionSummary: false,
      };
      for (const turn of [call, failed])
        for (const mode of ["search", "read"] as const)
          expect(projectTranscriptTurnBoth(turn)[mode].text, `${s.detector} (${mode})`).not.toContain(
            s.secret,
          );
    }
  });

  it("leaves text alone with redaction off", () => {
    const off = compileRedaction({ enabled: false, patterns: [], allow: [] });
    for (const s of SECRETS.filter((x) => x.text.length < 90))
      expect(boundText(`use ${s.text}`, "read", off).text).toContain(s.secret);
  });
});
