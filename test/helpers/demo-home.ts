import { generateDemoCorpus, type DemoManifest } from "../../src/demo/index.js";
import { tempDir } from "./tmp.js";

/** A generated demo corpus and the environment that points recall's sources and RECALL_HOME at it. */
export interface DemoHome {
  manifest: DemoManifest;
  env: Record<string, string>;
  cleanup: () => void;
}

export async function createDemoHome(
  options: { seed?: number; messages?: number; showcase?: boolean } = {},
): Promise<DemoHome> {
  const t = tempDir("recall-demo-");
  const manifest = await generateDemoCorpus({
    root: `${t.dir}/home`,
    seed: options.seed ?? 5,
    messages: options.messages ?? 800,
    showcase: options.showcase ?? false,
  });
  const env = {
    HOME: `${t.dir}/home`,
    RECALL_HOME: `${t.dir}/recall`,
    CLAUDE_CONFIG_DIR: manifest.paths.claudeConfigDir,
    CODEX_HOME: manifest.paths.codexHome,
    XDG_DATA_HOME: `${t.dir}/home/.local/share`,
    XDG_CONFIG_HOME: `${t.dir}/home/.config`,
    RECALL_BRIDGE_DIR: manifest.paths.bridgeDir,
  };
  return { manifest, env, cleanup: t.cleanup };
}
