import path from "node:path";
import { fileURLToPath } from "node:url";
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const SRC = path.join(path.dirname(fileURLToPath(import.meta.url)), "src");

/**
 * The layers of src/, lowest first, and what each may import (the design's layer diagram). This
 * table is the one place the order is written: a layer names only layers listed before it (checked
 * below), so imports point down; a folder not named is out of reach, peers included.
 */
export const LAYERS = [
  { layer: "core", imports: [] },
  // The file system helpers core/ must not do (folders, real paths, project roots, agents' folders).
  { layer: "platform", imports: ["core"] },
  { layer: "projection", imports: ["core"] },
  { layer: "store", imports: ["core", "platform", "projection"] },
  { layer: "bridge", imports: ["core", "platform", "store"] },
  { layer: "sources", imports: ["core", "platform", "projection", "store", "bridge"] },
  // config.json's schema derives each source's settings from the registry (sources/registry.ts).
  { layer: "config", imports: ["core", "platform", "projection", "sources"] },
  { layer: "search", imports: ["core", "platform", "config", "projection", "store"] },
  // The team store (PostgreSQL): its schema, pusher and search, built on search/'s query rules.
  { layer: "team", imports: ["core", "platform", "config", "projection", "store", "search"] },
  // indexer may read through search: `recall forget --session` removes exactly what search matches.
  { layer: "indexer", imports: ["core", "platform", "config", "projection", "store", "sources", "search"] },
  { layer: "conversations", imports: ["core", "platform", "projection", "store", "bridge", "sources"] },
  { layer: "answer", imports: ["core", "platform", "config", "search"] },
  { layer: "demo", imports: ["core", "platform", "projection", "bridge"] },
  {
    layer: "tools",
    imports: [
      "core",
      "platform",
      "config",
      "projection",
      "store",
      "sources",
      "search",
      "team",
      "conversations",
      "answer",
    ],
  },
  { layer: "audit", imports: ["core", "platform", "store"] },
  {
    layer: "app",
    imports: [
      ...["core", "platform", "config", "projection", "store", "bridge", "sources", "search", "indexer"],
      ...["team", "conversations", "answer", "demo", "tools", "audit"],
    ],
  },
  // Surfaces reach the engine through app/ and the tool objects only (core/ is the shared vocabulary).
  { layer: "mcp", imports: ["core", "app", "tools"] },
  { layer: "http", imports: ["core", "app", "tools"] },
  { layer: "embed", imports: ["core", "app", "tools"] },
  // The bin: it starts the MCP and HTTP servers and calls the embedded entry.
  { layer: "cli", imports: ["core", "app", "tools", "mcp", "http", "embed"] },
  // Measurements drive every part, as a user's process does.
  {
    layer: "bench",
    imports: [
      ...["core", "platform", "config", "projection", "store", "bridge", "sources", "search", "indexer"],
      ...["team", "conversations", "answer", "demo", "tools", "audit", "app", "mcp", "http", "embed", "cli"],
    ],
  },
];

const reach = new Map();
for (const { layer, imports } of LAYERS) {
  const below = imports.filter((name) => !reach.has(name));
  if (below.length) throw new Error(`LAYERS: ${layer} imports ${below.join(", ")}, not listed before it`);
  reach.set(layer, new Set(imports));
}

/** The top folder under src/ a path is in, or null outside src/. */
function layerOf(file) {
  const relative = path.relative(SRC, file);
  if (relative.startsWith("..") || path.isAbsolute(relative)) return null;
  const [top] = relative.split(path.sep);
  return top === relative ? null : top;
}

/** Why `from` may not import `to`, or null when it may. */
function layerViolation(from, to) {
  if (from === to) return null;
  const allowed = reach.get(from);
  if (!allowed) return `src/${from}/ has no place in LAYERS (eslint.config.js)`;
  if (allowed.has(to)) return null;
  return `${from}/ imports only ${[...allowed].join(", ")} (LAYERS in eslint.config.js), not ${to}/`;
}

const layersRule = {
  meta: { type: "problem", schema: [], messages: { against: "{{why}} (import of {{spec}})" } },
  create(context) {
    const from = layerOf(context.filename);
    if (from === null) return {};
    const check = (node, source) => {
      if (!source || source.type !== "Literal" || typeof source.value !== "string") return;
      const spec = source.value;
      if (!spec.startsWith(".")) return;
      const to = layerOf(path.resolve(path.dirname(context.filename), spec));
      const why = to === null ? null : layerViolation(from, to);
      if (why) context.report({ node, messageId: "against", data: { why, spec } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
    };
  },
};

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "coverage/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: "readonly", console: "readonly" } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-control-regex": "off",
    },
  },
  // Type-aware rules on TypeScript: floating promises, unsafe any, needless assertions.
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: ["**/*.ts"] })),
  {
    files: ["**/*.ts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // An async implementation of a promise-returning interface turns a throw into a rejection,
      // which its callers rely on: it needs no await to be right.
      "@typescript-eslint/require-await": "off",
      // A URLSearchParams is its query string in a template.
      "@typescript-eslint/restrict-template-expressions": [
        "error",
        { allow: [{ from: "package", name: "URLSearchParams", package: "url" }] },
      ],
    },
  },
  {
    // Tests read the JSON that processes print: typing every such shape would only restate it.
    files: ["test/**/*.ts", "src/**/*.test.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
  {
    // A ratchet (test/lint-ratchet.test.ts): these warnings may only become fewer.
    files: ["src/**/*.ts"],
    ignores: ["src/**/*.test.ts"],
    rules: {
      "max-lines": ["warn", { max: 400, skipBlankLines: true, skipComments: true }],
      complexity: ["warn", 20],
    },
  },
  {
    // Tests build real fixtures through whichever layer makes them, so only shipped code is held to the order.
    files: ["src/**/*.ts"],
    ignores: ["src/**/*.test.ts"],
    plugins: { recall: { rules: { layers: layersRule } } },
    rules: { "recall/layers": "error" },
  },
);
