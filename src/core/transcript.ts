import { z } from "zod";
import { Role } from "./kinds.js";

/**
 * The canonical shape every transcript source (Claude Code, Codex, opencode) maps its
 * records into before projection. Sources keep payloads here as they found them; the
 * projection decides what of it may ever be indexed or returned.
 */
export const TranscriptBlock = z.discriminatedUnion("type", [
  /** Text the speaker wrote. */
  z.object({ type: z.literal("text"), text: z.string() }),
  /** Model reasoning: never indexed, never returned. */
  z.object({ type: z.literal("thinking"), text: z.string() }),
  /** A tool invocation; `input` is the tool's raw argument object or string. */
  z.object({ type: z.literal("tool_call"), name: z.string(), input: z.unknown() }),
  /** A tool's output; the projection keeps an error summary and a bounded head-and-tail preview. */
  z.object({
    type: z.literal("tool_result"),
    name: z.string().optional(),
    isError: z.boolean().optional(),
    exitCode: z.number().nullable().optional(),
    output: z.unknown(),
  }),
  /** An image or other binary attachment; never indexed. */
  z.object({ type: z.literal("image"), mediaType: z.string().optional() }),
  /** Injected context (system reminder, environment, AGENTS.md, attachment). */
  z.object({ type: z.literal("context"), label: z.string(), text: z.string() }),
]);
export type TranscriptBlock = z.infer<typeof TranscriptBlock>;

export const TranscriptTurn = z.object({
  role: Role,
  blocks: z.array(TranscriptBlock),
  /** A machine-written summary that replaces earlier history (Claude isCompactSummary, Codex compacted, opencode compaction). */
  isCompactionSummary: z.boolean().default(false),
});
export type TranscriptTurn = z.infer<typeof TranscriptTurn>;
