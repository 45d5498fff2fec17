import { z } from "zod";
import { sourcesConfigSchema } from "../sources/derive.js";
import { SOURCES } from "../sources/registry.js";

/** The CLIs that can write an optional search answer (history-search-spec "Optional answers"). */
export const AnswerProviderName = z.enum(["codex", "claude", "opencode"]);
export type AnswerProviderName = z.infer<typeof AnswerProviderName>;

// Model ids reach a CLI as argument values; a leading "-" would read as a flag.
const ModelId = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:@/+-]*$/, "must be a model id (letters, digits, . _ : @ / + -)")
  .max(200);

/** config.json `historyAnswer`: provider order and model ids for `answer: true`. */
export const HistoryAnswerConfig = z
  .object({
    preference: z
      .array(AnswerProviderName)
      .min(1)
      .refine((list) => new Set(list).size === list.length, { message: "must not name a provider twice" })
      .default(["codex", "claude", "opencode"]),
    codexModel: ModelId.default("gpt-6-luna"),
    /** An alias such as "haiku" or a full model name; Claude resolves it itself. */
    claudeModel: ModelId.default("haiku"),
    /** provider/model; null picks the first model the local catalog prices at zero. */
    opencodeModel: ModelId.refine((id) => /^[^/]+\/.+$/.test(id), { message: "must be provider/model" })
      .nullable()
      .default(null),
  })
  .strict();
export type HistoryAnswerConfig = z.infer<typeof HistoryAnswerConfig>;

/** config.json `redaction.patterns[]`: an extra detector; each match becomes `[redacted:<name>]`. */
export const RedactionPattern = z
  .object({
    name: z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9-]{0,39}$/,
        "must be 1 to 40 lower-case letters, digits and -, as in internal-token",
      ),
    pattern: z.string().min(1).max(1000),
    /** Regular expression flags besides `g` (which is always on). */
    flags: z
      .string()
      .regex(/^[imsu]*$/, "may hold only i, m, s and u")
      .default(""),
  })
  .strict()
  .superRefine((value, ctx) => {
    let compiled: RegExp;
    try {
      compiled = new RegExp(value.pattern, value.flags);
    } catch (error) {
      ctx.addIssue({
        code: "custom",
        path: ["pattern"],
        message: `not a valid regular expression (${(error as Error).message})`,
      });
      return;
    }
    // A pattern that matches nothing at all would put a marker between every two characters.
    if (compiled.test(""))
      ctx.addIssue({ code: "custom", path: ["pattern"], message: "must not match the empty string" });
  });
export type RedactionPattern = z.infer<typeof RedactionPattern>;

/**
 * config.json `redaction` (README "Secrets"): secrets found in transcripts are replaced with
 * `[redacted:<detector>]` before anything is indexed, stored as read text or shown.
 */
export const RedactionConfig = z
  .object({
    /** false: secrets are indexed and shown as they are (`recall status` says so every time). */
    enabled: z.boolean().default(true),
    /** Detectors of this machine's own secret formats, run before the built-in ones. */
    patterns: z.array(RedactionPattern).max(64).default([]),
    /** Exact values never redacted (a documented example key, an id a detector takes for a secret). */
    allow: z.array(z.string().min(1).max(1000)).max(1000).default([]),
  })
  .strict();
export type RedactionConfig = z.infer<typeof RedactionConfig>;

/** config.json under RECALL_HOME. Every field optional; unknown fields are errors so typos surface. */
export const ConfigSchema = z
  .object({
    /** Each source's switches and settings (its definition under sources/<name>/). */
    sources: sourcesConfigSchema(SOURCES),
    retention: z
      .object({
        /** Upper bound on retained raw bytes per source (compressed), null for unbounded. */
        rawMaxBytesPerSource: z.number().int().positive().nullable().default(null),
      })
      .strict()
      .default({ rawMaxBytesPerSource: null }),
    server: z
      .object({ port: z.number().int().min(0).max(65535).default(0) })
      .strict()
      .default({ port: 0 }),
    redaction: RedactionConfig.default({ enabled: true, patterns: [], allow: [] }),
    historyAnswer: HistoryAnswerConfig.default({
      preference: ["codex", "claude", "opencode"],
      codexModel: "gpt-6-luna",
      claudeModel: "haiku",
      opencodeModel: null,
    }),
  })
  .strict();

export type Config = z.infer<typeof ConfigSchema>;
