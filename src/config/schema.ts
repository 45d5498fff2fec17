import { z } from "zod";

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
  })
  .strict();

export type Config = z.infer<typeof ConfigSchema>;
