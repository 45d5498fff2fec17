import path from "node:path";
import { planAgentSessions } from "./agent-sessions.js";
import { generateBridge } from "./bridge.js";
import { CanaryPool } from "./canaries.js";
import { generateClaude } from "./claude-code.js";
import { generateCline } from "./cline.js";
import { generateCodex } from "./codex.js";
import type { SourceContext, SourceResult } from "./context.js";
import { generateContinue } from "./continue.js";
import { generateCopilot } from "./copilot.js";
import { generateDyad } from "./dyad.js";
import { generateGeminiCli } from "./gemini-cli.js";
import { generateKilo } from "./kilo.js";
import {
  DEMO_SOURCES,
  demoAgentPaths,
  demoPaths,
  newerAgentPaths,
  writeManifest,
  type DemoManifest,
  type DemoOptions,
  type DemoSource,
  type SourceCounts,
} from "./manifest.js";
import { NeedlePlanner, allocateNeedles } from "./needles.js";
import { generateOpencode } from "./opencode.js";
import { generateQwenCode } from "./qwen-code.js";
import { generatePi } from "./pi.js";
import { DEFAULT_BASE_TIME, Progress, projectPaths } from "./plan.js";
import { Rng } from "./rng.js";
import { generateShowcase, SHOWCASE_QUERY } from "./showcase.js";
import { TextModel } from "./text.js";

/**
 * The deterministic demo corpus: the same options always produce the same files (JSONL/JSON
 * byte-identical, SQLite databases row-identical). Nothing reads the clock or Math.random.
 */

const DEFAULT_MESSAGES = 600;
const SHARES: Record<DemoSource, number> = { claude: 0.35, codex: 0.25, opencode: 0.2, dyad: 0.2 };
/** Average messages per session when the caller gives no session count. */
const PER_SESSION: Record<DemoSource, number> = { claude: 24, codex: 20, opencode: 16, dyad: 15 };

export interface ResolvedSpec {
  messages: number;
  sessions: number;
  projects: number;
}

/** Turns options into one size per enabled source (null = disabled). */
export function resolveSources(
  options: Pick<DemoOptions, "messages" | "sources">,
): Record<DemoSource, ResolvedSpec | null> {
  const total = Math.max(0, Math.floor(options.messages ?? DEFAULT_MESSAGES));
  const out = {} as Record<DemoSource, ResolvedSpec | null>;
  for (const src of DEMO_SOURCES) {
    const o = options.sources?.[src];
    if (o === false) {
      out[src] = null;
      continue;
    }
    const messages =
      typeof o === "object" ? Math.max(0, Math.floor(o.messages)) : Math.round(total * SHARES[src]);
    if (messages < 2) {
      out[src] = null;
      continue;
    }
    // Small corpora get more, shorter sessions so every shape still appears.
    const defaultSessions = Math.max(
      Math.round(messages / PER_SESSION[src]),
      Math.min(8, Math.floor(messages / 6)),
    );
    const sessions = Math.max(
      1,
      Math.floor(typeof o === "object" && o.sessions !== undefined ? o.sessions : defaultSessions),
    );
    const defaultProjects =
      src === "dyad"
        ? Math.min(6, Math.max(2, Math.ceil(sessions / 4)))
        : Math.min(12, Math.max(3, Math.ceil(sessions / 4)));
    const projects = Math.max(
      1,
      Math.min(
        sessions,
        Math.floor(typeof o === "object" && o.projects !== undefined ? o.projects : defaultProjects),
      ),
    );
    out[src] = { messages, sessions, projects };
  }
  return out;
}

const EMPTY: SourceCounts = { sessions: 0, messages: 0, files: 0 };

export async function generateDemoCorpus(options: DemoOptions): Promise<DemoManifest> {
  const seed = (options.seed ?? 1) >>> 0;
  const baseTime = options.baseTime ?? DEFAULT_BASE_TIME;
  const root = path.resolve(options.root);
  const paths = demoPaths(root);
  writeManifest({ root, seed, incomplete: true });
  const specs = resolveSources(options);
  const rng = new Rng(seed);
  const text = new TextModel(rng);
  const pool = new CanaryPool(rng);
  const plannedMessages: Partial<Record<DemoSource, number>> = {};
  for (const src of DEMO_SOURCES) if (specs[src] !== null) plannedMessages[src] = specs[src].messages;
  const needleCounts = allocateNeedles(plannedMessages);
  const cliProjects = Math.max(
    1,
    ...DEMO_SOURCES.filter((s) => s !== "dyad").map((s) => specs[s]?.projects ?? 0),
  );
  const allProjects = projectPaths(cliProjects);
  const progress = new Progress(
    Object.values(plannedMessages).reduce((a, b) => a + b, 0),
    options.onProgress,
  );

  const counts: Record<DemoSource, SourceCounts> = {
    claude: { ...EMPTY },
    codex: { ...EMPTY },
    opencode: { ...EMPTY },
    dyad: { ...EMPTY },
  };
  const usedProjects = new Set<string>();
  const needles: DemoManifest["needles"] = [];
  for (const [i, src] of DEMO_SOURCES.entries()) {
    const spec = specs[src];
    if (spec === null) continue;
    const srcRng = rng.fork(`source-${src}`);
    const planner = new NeedlePlanner(srcRng.fork("needles"), src, needleCounts[src], spec.messages);
    const ctx: SourceContext = {
      rng: srcRng,
      text,
      canaries: pool.view(i * 6),
      needles: planner,
      progress,
      baseTime,
      projects: allProjects.slice(0, spec.projects),
      spec,
    };
    let result: SourceResult;
    if (src === "claude") result = generateClaude(ctx, paths.claudeConfigDir);
    else if (src === "codex") result = generateCodex(ctx, paths.codexHome);
    else if (src === "opencode") result = generateOpencode(ctx, paths.opencodeDataDir);
    else result = generateDyad(ctx, paths.dyadDb, paths.dyadAppsDir);
    counts[src] = result.counts;
    for (const p of result.projectsUsed) usedProjects.add(p);
    needles.push(...planner.needles());
    // Let the event loop breathe between sources (progress bars, signals).
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  const bridge = generateBridge(rng.fork("bridge"), text, paths.bridgeDir, baseTime, allProjects);
  // Last, from their own streams: the four sources' and the bridge's output stay as they were.
  const agentDirs = demoAgentPaths(root);
  const none: SourceCounts = { ...EMPTY };
  const agents = {
    gemini:
      options.agents?.gemini === false
        ? none
        : generateGeminiCli(rng.fork("gemini-cli"), text, agentDirs.geminiDir, baseTime, allProjects),
    qwen:
      options.agents?.qwen === false
        ? none
        : generateQwenCode(rng.fork("qwen-code"), text, agentDirs.qwenHome, baseTime, allProjects),
  };
  // After every spec-era source, each on its own forked stream: their files stay as they were.
  const small = (label: string) => ({ rng: rng.fork(label), text, baseTime, projects: allProjects });
  const moreAgents: DemoManifest["moreAgents"] = {
    copilot: generateCopilot(small("source-copilot"), paths.copilotHome),
    pi: generatePi(small("source-pi"), paths.piAgentDir),
  };
  const newerAgents =
    options.newerAgents === false ? undefined : generateNewerAgents(rng, text, root, baseTime, allProjects);
  // Last and from no stream: the generated corpus is byte for byte what it is without them.
  const showcase = options.showcase
    ? { ...generateShowcase(paths.claudeConfigDir, baseTime), query: SHOWCASE_QUERY }
    : undefined;
  progress.finish();
  const manifest: DemoManifest = {
    root,
    seed,
    counts,
    paths,
    projects: allProjects.filter((p) => usedProjects.has(p)),
    needles,
    canaries: pool.used(),
    agents,
    bridge,
    moreAgents,
    ...(newerAgents ? { newerAgents } : {}),
    ...(showcase ? { showcase } : {}),
  };
  writeManifest(manifest);
  return manifest;
}

/**
 * A demo corpus an earlier recall wrote before the showcase, with the showcase added as a new
 * corpus has it (`npm start` reuses its corpus, and its sample search is the showcase's).
 */
export function withShowcase(manifest: DemoManifest): DemoManifest {
  if (manifest.showcase) return manifest;
  const showcase = {
    ...generateShowcase(manifest.paths.claudeConfigDir, DEFAULT_BASE_TIME),
    query: SHOWCASE_QUERY,
  };
  const updated = { ...manifest, showcase };
  writeManifest(updated);
  return updated;
}

/**
 * Cline, Kilo Code and Continue: a few sessions each from their own forked streams, written after
 * every other source so the rest of the corpus is byte for byte what it was before them.
 */
function generateNewerAgents(
  rng: Rng,
  text: TextModel,
  root: string,
  baseTime: number,
  projects: readonly string[],
): NonNullable<DemoManifest["newerAgents"]> {
  const paths = newerAgentPaths(root);
  const plan = (agent: string) => {
    const own = rng.fork(`agent-${agent}`);
    return { own, sessions: planAgentSessions(own, text, baseTime, projects) };
  };
  const cline = plan("cline");
  const kilo = plan("kilo");
  const cont = plan("continue");
  return {
    paths,
    counts: {
      cline: generateCline(cline.sessions, paths.clineDir),
      kilo: generateKilo(kilo.sessions, paths.kiloDataDir),
      continue: generateContinue(cont.own, cont.sessions, paths.continueDir),
    },
  };
}
