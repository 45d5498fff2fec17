/**
 * Dyad's `apps`, `chats` and `messages` tables as drizzle-kit emits them for SQLite, with the SQL
 * column names and types of Dyad's schema (docs/sources/dyad.md) (the pre-feature state: no chat search tables, no
 * post-feature columns). Timestamps are integer Unix SECONDS with default (unixepoch()); booleans are
 * integers; foreign keys cascade on delete; `messages` has NO secondary index (not even on chat_id).
 */

export const DYAD_APP_COLLECTIONS = `CREATE TABLE \`app_collections\` (
	\`id\` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	\`name\` text NOT NULL,
	\`created_at\` integer DEFAULT (unixepoch()) NOT NULL,
	\`updated_at\` integer DEFAULT (unixepoch()) NOT NULL
);`;

export const DYAD_APPS = `CREATE TABLE \`apps\` (
	\`id\` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	\`name\` text NOT NULL,
	\`path\` text NOT NULL,
	\`created_at\` integer DEFAULT (unixepoch()) NOT NULL,
	\`updated_at\` integer DEFAULT (unixepoch()) NOT NULL,
	\`github_org\` text,
	\`github_repo\` text,
	\`github_branch\` text,
	\`supabase_project_id\` text,
	\`supabase_parent_project_id\` text,
	\`supabase_organization_slug\` text,
	\`supabase_test_user_id\` text,
	\`neon_project_id\` text,
	\`neon_development_branch_id\` text,
	\`neon_preview_branch_id\` text,
	\`neon_active_branch_id\` text,
	\`neon_test_branch_id\` text,
	\`neon_production_auth_cookie_secret\` text,
	\`neon_development_auth_cookie_secret\` text,
	\`selected_database_branch_type\` text,
	\`vercel_project_id\` text,
	\`vercel_project_name\` text,
	\`vercel_team_id\` text,
	\`vercel_deployment_url\` text,
	\`install_command\` text,
	\`start_command\` text,
	\`chat_context\` text,
	\`is_favorite\` integer DEFAULT 0 NOT NULL,
	\`theme_id\` text,
	\`needs_app_blueprint\` integer DEFAULT 0 NOT NULL,
	\`testing_enabled\` integer DEFAULT 0 NOT NULL,
	\`collection_id\` integer,
	FOREIGN KEY (\`collection_id\`) REFERENCES \`app_collections\`(\`id\`) ON UPDATE no action ON DELETE set null
);`;

export const DYAD_CHATS = `CREATE TABLE \`chats\` (
	\`id\` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	\`app_id\` integer NOT NULL,
	\`title\` text,
	\`initial_commit_hash\` text,
	\`created_at\` integer DEFAULT (unixepoch()) NOT NULL,
	\`compacted_at\` integer,
	\`compaction_backup_path\` text,
	\`pending_compaction\` integer,
	\`chat_mode\` text,
	\`is_favorite\` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (\`app_id\`) REFERENCES \`apps\`(\`id\`) ON UPDATE no action ON DELETE cascade
);`;

export const DYAD_MESSAGES = `CREATE TABLE \`messages\` (
	\`id\` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	\`chat_id\` integer NOT NULL,
	\`role\` text NOT NULL,
	\`content\` text NOT NULL,
	\`approval_state\` text,
	\`source_commit_hash\` text,
	\`commit_hash\` text,
	\`request_id\` text,
	\`max_tokens_used\` integer,
	\`model\` text,
	\`ai_messages_json\` text,
	\`using_free_agent_mode_quota\` integer,
	\`is_compaction_summary\` integer,
	\`created_at\` integer DEFAULT (unixepoch()) NOT NULL,
	FOREIGN KEY (\`chat_id\`) REFERENCES \`chats\`(\`id\`) ON UPDATE no action ON DELETE cascade
);`;

export const DYAD_DDL: readonly string[] = [DYAD_APP_COLLECTIONS, DYAD_APPS, DYAD_CHATS, DYAD_MESSAGES];

/** SQL column names, in table order, for tests and readers. */
export const DYAD_COLUMNS = {
  apps: [
    "id",
    "name",
    "path",
    "created_at",
    "updated_at",
    "github_org",
    "github_repo",
    "github_branch",
    "supabase_project_id",
    "supabase_parent_project_id",
    "supabase_organization_slug",
    "supabase_test_user_id",
    "neon_project_id",
    "neon_development_branch_id",
    "neon_preview_branch_id",
    "neon_active_branch_id",
    "neon_test_branch_id",
    "neon_production_auth_cookie_secret",
    "neon_development_auth_cookie_secret",
    "selected_database_branch_type",
    "vercel_project_id",
    "vercel_project_name",
    "vercel_team_id",
    "vercel_deployment_url",
    "install_command",
    "start_command",
    "chat_context",
    "is_favorite",
    "theme_id",
    "needs_app_blueprint",
    "testing_enabled",
    "collection_id",
  ],
  chats: [
    "id",
    "app_id",
    "title",
    "initial_commit_hash",
    "created_at",
    "compacted_at",
    "compaction_backup_path",
    "pending_compaction",
    "chat_mode",
    "is_favorite",
  ],
  messages: [
    "id",
    "chat_id",
    "role",
    "content",
    "approval_state",
    "source_commit_hash",
    "commit_hash",
    "request_id",
    "max_tokens_used",
    "model",
    "ai_messages_json",
    "using_free_agent_mode_quota",
    "is_compaction_summary",
    "created_at",
  ],
} as const;
