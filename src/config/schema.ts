import { z } from "zod";

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
    sources: z
      .object({
        claude: z.boolean().default(true),
        codex: z.boolean().default(true),
        opencode: z.boolean().default(true),
        /** Dyad's own chat database (its userData sqlite.db), indexed read-only when present. */
        dyad: z.boolean().default(true),
        /** Dyad-shaped chat databases to index read-only, besides Dyad's own userData sqlite.db. */
        dyadDatabases: z.array(z.string().min(1)).default([]),
        /** Dyad's apps folder, against which relative apps.path values resolve. */
        dyadAppsDir: z.string().min(1).optional(),
        /** The agent-bridge store's root (docs/bridge-store.md); RECALL_BRIDGE_DIR overrides it. */
        bridgeDir: z.string().min(1).optional(),
      })
      .strict()
      .default({ claude: true, codex: true, opencode: true, dyad: true, dyadDatabases: [] }),
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
    historyAnswer: HistoryAnswerConfig.default({
      preference: ["codex", "claude", "opencode"],
      codexModel: "gpt-6-luna",
      claudeModel: "haiku",
      opencodeModel: null,
    }),
  })
  .strict();

export type Config = z.infer<typeof ConfigSchema>;
