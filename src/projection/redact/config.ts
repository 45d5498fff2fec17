import { z } from "zod";

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
