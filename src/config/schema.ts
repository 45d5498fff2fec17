import { z } from "zod";
import { sourcesConfigSchema } from "../sources/derive.js";
import { SOURCES } from "../sources/registry.js";
import { RedactionConfig } from "../projection/redact/config.js";

export { RedactionConfig, RedactionPattern } from "../projection/redact/config.js";

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
    /** The team store (docs/team.md): a PostgreSQL URL, this machine's name, projects never pushed. */
    team: z
      .object({
        url: z.string().trim().min(1).optional(),
        machine: z.string().trim().min(1).max(200).optional(),
        localOnly: z.array(z.string().trim().min(1)).default([]),
      })
      .strict()
      .optional(),
    historyAnswer: HistoryAnswerConfig.default({
      preference: ["codex", "claude", "opencode"],
      codexModel: "gpt-6-luna",
      claudeModel: "haiku",
      opencodeModel: null,
    }),
  })
  .strict();

export type Config = z.infer<typeof ConfigSchema>;
