import type { AnswerProviderName } from "../config/schema.js";
import { findOnPath } from "./process.js";
import type { AnswerProvider, ProviderContext, Skip } from "./types.js";

export interface Selected {
  provider: AnswerProvider;
  command: string;
  model: string;
}

/**
 * The first provider in preference order whose binary is on PATH, whose usage limits are
 * readable and not exhausted, and whose configured model is available. Providers are probed one
 * at a time and only until one qualifies; there is no fallback to any other model.
 */
export async function selectProvider(
  providers: ReadonlyMap<AnswerProviderName, AnswerProvider>,
  base: Omit<ProviderContext, "command">,
): Promise<{ selected: Selected | null; skipped: (Skip & { provider: AnswerProviderName })[] }> {
  const skipped: (Skip & { provider: AnswerProviderName })[] = [];
  for (const name of base.config.preference) {
    // Cancelled, or past the answer's deadline: no further probe starts.
    if (base.signal.aborted) break;
    const provider = providers.get(name);
    const command = provider ? findOnPath(provider.binary, base.env) : null;
    if (!provider || !command) {
      skipped.push({ provider: name, reason: "missing-binary", detail: `${name} is not on PATH` });
      continue;
    }
    let availability;
    try {
      availability = await provider.probe({ ...base, command });
    } catch (error) {
      availability = {
        ok: false as const,
        reason: "probe-failed" as const,
        detail: (error as Error).message,
      };
    }
    if (availability.ok) return { selected: { provider, command, model: availability.model }, skipped };
    skipped.push({ provider: name, reason: availability.reason, detail: availability.detail });
  }
  return { selected: null, skipped };
}
