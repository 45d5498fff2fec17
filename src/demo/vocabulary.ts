/**
 * Word lists for the demo corpus. The head of `COMMON_WORDS` is sampled most often (Zipf rank 1, 2,
 * …), so a handful of words appear in most messages; a generated long tail (see text.ts) makes many
 * words rare. No list entry contains a digit: planted needle tokens always do, so they never collide.
 */

/** Ordered by intended frequency: the first entries dominate every message. */
export const COMMON_WORDS: readonly string[] = (
  "the to and of a in is we for that it this with on be not should session index cache build test " +
  "error request user file config data query update change fix add new use run when can so from " +
  "api server client token timeout retry search message service handler module schema migration " +
  "database table column route endpoint response worker queue batch job deploy release version " +
  "branch commit review merge pull issue bug crash log trace metric latency memory disk network " +
  "socket connection pool limit size default option flag value key field record event stream " +
  "buffer parser format encode decode json sqlite index fts snippet ranking filter scope project " +
  "workspace folder path script command shell process thread lock mutex signal exit status " +
  "output input payload header body cookie auth login logout password permission role admin " +
  "tenant account billing invoice payment customer order cart checkout price currency report " +
  "dashboard chart page component state hook render prop layout style theme button modal form " +
  "validation error boundary fallback loader spinner toast banner tooltip menu sidebar navbar " +
  "feature toggle experiment rollout staging production preview environment secret vault " +
  "certificate domain proxy gateway load balancer cluster node pod container image registry " +
  "pipeline workflow action runner artifact cache key checksum hash digest signature compress " +
  "archive backup restore snapshot replica shard partition offset cursor checkpoint watermark " +
  "backfill reindex vacuum analyze pragma journal wal transaction rollback savepoint constraint " +
  "foreign unique primary trigger view virtual tokenizer diacritics stemming stopword phrase term " +
  "document corpus posting score boost decay recency freshness staleness coverage backlog " +
  "budget bound cap truncate ellipsis excerpt highlight locale unicode emoji newline whitespace " +
  "regex glob pattern wildcard escape quote bracket brace comma semicolon colon slash backslash " +
  "really maybe probably definitely already still again later soon now then before after during " +
  "quick slow stale flaky broken green red yellow blocked pending done approved rejected merged " +
  "careful simple clean small large huge tiny nested async sync lazy eager strict loose safe unsafe"
)
  .split(/\s+/)
  .filter((w, i, all) => w.length > 0 && all.indexOf(w) === i);

export const NOUNS: readonly string[] = (
  "session cache index migration schema endpoint handler worker queue token retry timeout payload " +
  "cursor checkpoint snippet ranking filter tokenizer transaction rollback replica shard backlog " +
  "parser encoder decoder webhook scheduler throttle debounce middleware router controller " +
  "resolver adapter connector importer exporter bundler linter formatter watcher daemon broker " +
  "lockfile manifest changelog dashboard sidebar modal tooltip spinner banner toast form wizard " +
  "invoice receipt subscription coupon discount ledger balance refund chargeback payout tenant " +
  "workspace organization membership invitation permission policy role audit trail telemetry " +
  "histogram counter gauge span trace sampler exporter collector alert incident postmortem runbook"
)
  .split(/\s+/)
  .filter((w) => w.length > 0);

export const VERBS: readonly string[] = (
  "refactor migrate fix add remove rename split merge cache debounce validate normalize index " +
  "reindex backfill truncate paginate batch stream throttle retry memoize inline extract hoist " +
  "deprecate document benchmark profile instrument log trace mock stub patch revert squash rebase " +
  "bisect pin bump upgrade downgrade vendor bundle shard partition compress decompress encrypt " +
  "rotate revoke expire invalidate evict warm prefetch hydrate serialize deserialize escape sanitize"
)
  .split(/\s+/)
  .filter((w) => w.length > 0);

export const ADJECTIVES: readonly string[] = (
  "stale flaky slow broken noisy brittle legacy experimental deprecated critical optional nested " +
  "async lazy eager strict idempotent atomic durable ephemeral transient persistent bounded " +
  "unbounded sorted unsorted duplicated missing corrupted truncated oversized empty partial"
)
  .split(/\s+/)
  .filter((w) => w.length > 0);

export const ERROR_CODES: readonly string[] = [
  "ERR_SOCKET_TIMEOUT",
  "ERR_MODULE_NOT_FOUND",
  "ERR_INVALID_ARG_TYPE",
  "ERR_STREAM_PREMATURE_CLOSE",
  "ERR_HTTP_HEADERS_SENT",
  "ECONNRESET",
  "ECONNREFUSED",
  "ETIMEDOUT",
  "ENOSPC",
  "EACCES",
  "SQLITE_BUSY",
  "SQLITE_CORRUPT",
  "SQLITE_CONSTRAINT_FOREIGNKEY",
  "TS2345",
  "TS2322",
  "TS7006",
  "E1234",
  "E0425",
  "E0308",
  "HTTP_503",
  "HTTP_429",
  "OOMKilled",
];

export const ERROR_MESSAGES: readonly string[] = [
  "socket hang up after 30000 ms",
  "Cannot find module './session.js' imported from dist/index.js",
  "database is locked",
  "FOREIGN KEY constraint failed",
  "Argument of type 'string | undefined' is not assignable to parameter of type 'string'",
  "Unexpected token '<' in JSON at position 0",
  "Maximum call stack size exceeded",
  "read ECONNRESET",
  "no space left on device",
  "permission denied, open '/var/lib/app/cache.db'",
  "expected 200 OK but received 503 Service Unavailable",
  "Too Many Requests: retry after 12 seconds",
  "heap out of memory while parsing transcript",
];

const DIRS = [
  "src/auth",
  "src/db",
  "src/db/migrations",
  "src/api/routes",
  "src/search",
  "src/indexer",
  "src/cli",
  "src/ui/components",
  "src/ui/hooks",
  "src/lib",
  "src/workers",
  "packages/core/src",
  "packages/web/app",
  "lib/utils",
  "server/handlers",
  "scripts",
  "test/integration",
];
const BASENAMES = [
  "session",
  "cache",
  "index",
  "query",
  "tokenizer",
  "ranking",
  "snippet",
  "retry",
  "config",
  "schema",
  "migrate",
  "worker",
  "queue",
  "billing",
  "invoice",
  "auth",
  "login",
  "router",
  "logger",
  "metrics",
  "upload",
  "stream",
  "parser",
  "checkout",
  "settings",
  "SearchBox",
  "ResultList",
  "useDebounce",
];
const EXTS = [".ts", ".ts", ".ts", ".tsx", ".js", ".py", ".sql", ".go", ".rs", ".json", ".md", ".css"];

/** Deterministic list of plausible repository file paths, e.g. `src/auth/session.ts`. */
export const FILE_PATHS: readonly string[] = (() => {
  const out: string[] = [];
  for (let i = 0; i < DIRS.length; i++) {
    for (let j = 0; j < BASENAMES.length; j++) {
      if ((i * 7 + j * 3) % 4 !== 0) continue;
      const ext = EXTS[(i + j) % EXTS.length] as string;
      out.push(`${DIRS[i]}/${BASENAMES[j]}${ext}`);
    }
  }
  out.unshift("src/auth/session.ts", "src/db/migrations/0042_add_fts_index.sql", "package.json", "README.md");
  return [...new Set(out)];
})();

export const COMMANDS: readonly string[] = [
  "npm test",
  "npx vitest run src/search",
  "npx tsc --noEmit",
  "npm run build",
  "git status",
  "git diff --stat",
  "git log --oneline -n 20",
  "rg -n 'retry' src",
  "ls -la src",
  "cargo test -p indexer",
  "pytest -q tests/test_api.py",
  "go test ./...",
  "sqlite3 data/app.db '.schema messages'",
  "docker compose up -d db",
  "curl -s localhost:8080/healthz",
];

export const MODELS_CLAUDE: readonly string[] = [
  "claude-sonnet-4-5-20250929",
  "claude-opus-4-1-20250805",
  "claude-sonnet-4-5",
  "claude-haiku-4-5-20251001",
];
export const MODELS_CODEX: readonly string[] = ["gpt-5-codex", "gpt-5.1-codex", "gpt-5.5", "gpt-5.6-luna"];
export const MODELS_OPENCODE: readonly (readonly [provider: string, model: string])[] = [
  ["anthropic", "claude-sonnet-4-5"],
  ["openai", "gpt-5.1"],
  ["opencode", "grok-code"],
  ["google", "gemini-2.5-pro"],
];
export const MODELS_DYAD: readonly string[] = ["claude-sonnet-4-5", "gpt-5.1", "gemini-2.5-pro", "auto"];

/**
 * Non-English sentences (German umlauts, French accents, Spanish, Portuguese, Polish, Russian,
 * Japanese, Chinese, Korean, emoji). `{file}` is replaced with a file path.
 */
export const MULTILINGUAL_SENTENCES: readonly string[] = [
  "Die Sitzung läuft nach fünf Minuten ab, wir müssen das Zwischenspeichern in {file} überprüfen.",
  "Könntest du die Fehlermeldung übersetzen? Der Größenvergleich schlägt bei Umlauten fehl.",
  "Bitte prüfe, ob die Übergabe der Schlüssel für äußere Dienste noch funktioniert.",
  "Le déploiement a échoué à cause d'une dépendance périmée dans {file}.",
  "Il faut préserver les accents : « élève », « garçon », « Noël » doivent être trouvés sans diacritiques.",
  "La requête était très lente ; j'ai ajouté un index sur la colonne créée.",
  "La migración de la base de datos tardó más de lo esperado; ¿podemos añadir un índice?",
  "El niño pidió que la búsqueda ignore las tildes en «canción» y «pingüino».",
  "A sessão expirou e o usuário perdeu o carrinho; precisamos de uma solução já.",
  "Zażółć gęślą jaźń — sprawdź, czy wyszukiwarka obsługuje polskie znaki.",
  "Сборка падает с ошибкой тайм-аута при подключении к базе данных.",
  "Проверь, пожалуйста, индексацию файла {file} — поиск не находит слово «ёлка».",
  "Мы решили хранить курсор в таблице контрольных точек.",
  "キャッシュの有効期限を五分に設定してください。",
  "検索結果に古いメッセージが表示されません。{file} を確認してください。",
  "この変更でセッションの復元が速くなりました。",
  "请把会话超时改成五分钟，并补充单元测试。",
  "全文索引在中文分词上表现不好，我们需要评估一下。",
  "部署之后日志里出现了大量重复的记录。",
  "검색 결과가 너무 느려서 인덱스를 다시 만들었습니다.",
  "Ship it 🚀 — the tests are green ✅ and the flaky one is quarantined 🧪.",
  "The dashboard shows 🔥 for hot shards and 🧊 for cold ones; keep both in the legend.",
  "Naïve café résumé coöperate: make sure diacritic folding handles these too.",
  "Deploy finished 🎉 but the latency graph still looks 📈 after the cache warmup.",
  "Bug triage 🐛: the retry storm only happens when the socket pool is exhausted.",
  "Straße and STRASSE should match when case folding is on — ß is tricky.",
];

export const SHELL_OUTPUT_LINES: readonly string[] = [
  "PASS  src/search/query.test.ts (12 tests) 184ms",
  "FAIL  src/indexer/batch.test.ts > resumes from checkpoint",
  "  ✓ compiles quoted terms",
  "  ✓ rejects raw FTS syntax",
  "  × keeps the newest 200 candidates (expected 200, received 199)",
  "warning: unused variable `cursor` at src/indexer/worker.rs:88:9",
  "added 412 packages, and audited 413 packages in 9s",
  "found 0 vulnerabilities",
  "On branch main\nYour branch is up to date with 'origin/main'.",
  "modified:   src/auth/session.ts",
  "Compiling recall-core v0.4.2",
  "Finished `test` profile [unoptimized + debuginfo] target(s) in 4.21s",
  "error[E0308]: mismatched types",
  "src/db/schema.ts(41,7): error TS2322: Type 'number' is not assignable to type 'string'.",
  "GET /api/search?q=session 200 in 14ms",
  "POST /api/index 202 in 3ms",
  "[worker] batch 17: 50 rows, 12.4 ms, backlog 1840",
  "[worker] checkpoint saved at offset 1048576",
  "drwxr-xr-x  12 demo  staff   384 Mar  3 10:12 src",
  "-rw-r--r--   1 demo  staff  4096 Mar  3 10:12 package.json",
];
