/**
 * `warden memory list|search|show|forget|stale`: what memory holds for a workspace (its project
 * scope, the user scope, and a session's own with --session), ranked with the score memory_search
 * uses and, with --explain, every term of it. `forget` removes a record (or every expired one with
 * --expired) and `stale` marks one outdated; both are recorded in the audit. A record labelled
 * secret is not printed unless --reveal asks for it.
 */
import type { Command } from "commander";
import type { MemoryHit } from "../../kernel/memory/memory-request.js";
import type { MemoryRow } from "../../store/memory-rows.js";
import type { Runtime } from "../../runtime/runtime.js";
import type { MemoryWhere } from "../../runtime/memory-admin.js";
import { EXIT, UsageError } from "./cli-error.js";
import { contentLines, shownLines } from "./shown-lines.js";

interface WhereFlags {
	stateDir?: string;
	workspace?: string;
	scope?: string[];
	session?: string;
	namespace?: string;
	kind?: string;
	json?: boolean;
}

const SCOPES = ["user", "project", "session"];
const KINDS = ["note", "outcome"];

async function withRuntime<T>(stateDir: string | undefined, body: (runtime: Runtime) => Promise<T>, readOnly: boolean): Promise<T> {
	const { Runtime } = await import("../../runtime/runtime.js");
	const runtime = await Runtime.open({ ...(stateDir ? { stateDir } : {}), readOnly });
	try {
		return await body(runtime);
	} finally {
		await runtime.close();
	}
}

async function whereOf(flags: WhereFlags): Promise<MemoryWhere> {
	const { realDirectory } = await import("../../providers/directory-probe.js");
	for (const s of flags.scope ?? []) if (!SCOPES.includes(s)) throw new UsageError(`--scope must be one of ${SCOPES.join(", ")}, got ${JSON.stringify(s)}`);
	if (flags.kind !== undefined && !KINDS.includes(flags.kind)) throw new UsageError(`--kind must be note or outcome, got ${JSON.stringify(flags.kind)}`);
	return {
		workspace: await realDirectory(flags.workspace ?? process.cwd(), "workspace"),
		...(flags.scope?.length ? { scopes: flags.scope as MemoryWhere["scopes"] } : {}),
		...(flags.session ? { session: flags.session } : {}),
		...(flags.namespace ? { namespace: flags.namespace } : {}),
		...(flags.kind ? { kind: flags.kind as MemoryRow["kind"] } : {}),
	};
}

function collect(value: string, previous: string[] = []): string[] {
	return [...previous, value];
}

function whereOptions(cmd: Command): Command {
	return cmd
		.option("--state-dir <dir>", "state directory (default $WARDEN_HOME)")
		.option("--workspace <dir>", "the workspace whose project memory to use (default: the current directory)")
		.option("--scope <scope>", "only this scope: user, project or session (repeatable)", collect)
		.option("--session <id>", "include this session's own (session-scoped) records")
		.option("--namespace <name>", "only this namespace")
		.option("--kind <kind>", "only notes or tool outcomes (note | outcome)")
		.option("--json", "one JSON object per line");
}

function labelText(row: MemoryRow): string {
	const from = row.label.sources
		.slice(0, 2)
		.map((s) => `${s.kind} ${s.ref}`)
		.join(", ");
	return `${row.label.sensitivity}, ${row.label.integrity}${from ? ` (from ${from})` : ""}`;
}

/** A row as printed or as JSON: a secret record's text only with --reveal. */
function shown(row: MemoryRow, reveal: boolean): MemoryRow {
	if (row.label.sensitivity !== "secret" || reveal) return row;
	return { ...row, title: "(secret: use --reveal)", content: "(secret: use --reveal)" };
}

function rowLine(row: MemoryRow): string {
	const flags = [row.stale ? "STALE" : undefined, row.expires_at ? `expires ${row.expires_at}` : undefined].filter((f) => f !== undefined);
	return `${row.id}  ${row.scope}/${row.namespace}  ${row.kind}  ${row.title}  [${labelText(row)}]  ${row.updated_at}${flags.length ? `  ${flags.join(", ")}` : ""}`;
}

function hitText(hit: MemoryHit, explain: boolean): string {
	const lines = [`${hit.score.total.toFixed(3)}  ${rowLine(hit.record)}`];
	if (explain) {
		for (const t of hit.score.terms) lines.push(`    ${t.term.padEnd(8)} ${t.points >= 0 ? "+" : ""}${t.points.toFixed(3)}  = ${t.value.toFixed(3)} × ${t.weight}`);
	}
	return shownLines(lines);
}

function showText(row: MemoryRow): string {
	const lines = [
		`id          ${row.id}`,
		`scope       ${row.scope}${row.scope_key ? ` (${row.scope_key})` : ""}`,
		`namespace   ${row.namespace}`,
		`kind        ${row.kind}`,
		`title       ${row.title}`,
		`tags        ${row.tags.join(", ") || "-"}`,
		`paths       ${row.path_hints.join(", ") || "-"}`,
		`label       ${labelText(row)}`,
		`written by  session ${row.written_by_session}${row.written_by_call ? `, call ${row.written_by_call}` : ""}`,
		`created     ${row.created_at}`,
		`updated     ${row.updated_at}`,
		`expires     ${row.expires_at ?? "never"}`,
		`stale       ${row.stale ? "yes" : "no"}`,
	];
	if (Object.keys(row.metadata).length > 0) lines.push(`metadata    ${JSON.stringify(row.metadata)}`);
	if (row.embedding_model) lines.push(`embedding   ${row.embedding_model}`);
	return shownLines([...lines, "", ...contentLines(row.content)]);
}

export function registerMemoryCommand(program: Command, out: (text: string) => void): void {
	const memory = program.command("memory").description("what memory holds for a workspace: list, search (--explain shows each term of the score), show, forget, stale");
	whereOptions(memory.command("list").description("records newest first (expired and stale ones with --all)"))
		.option("--all", "include stale and expired records")
		.option("--limit <n>", "at most this many", "100")
		.action(async (flags: WhereFlags & { all?: boolean; limit: string }) => {
			const limit = Number(flags.limit);
			if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive whole number, got ${JSON.stringify(flags.limit)}`);
			const where = await whereOf(flags);
			const { listMemory } = await import("../../runtime/memory-admin.js");
			const rows = await withRuntime(flags.stateDir, (rt) => listMemory(rt.store, where, { all: flags.all === true, limit }), true);
			for (const row of rows) out(flags.json ? `${JSON.stringify(shown(row, false))}\n` : shownLines([rowLine(shown(row, false))]));
			if (!flags.json && rows.length === 0) out(shownLines(["no memory records"]));
			process.exitCode = EXIT.ok;
		});
	whereOptions(memory.command("search").description("rank records for a query with the memory_search score"))
		.argument("<query>", "words to look for")
		.option("--explain", "show every term of each score: tag, title, keyword, content, path, recency, stale (and semantic with embeddings)")
		.option("--path <path>", "a path you are working on: records with a path hint on it score the path term (repeatable)", collect)
		.option("--stale", "include stale records")
		.option("--limit <n>", "at most this many", "10")
		.action(async (query: string, flags: WhereFlags & { explain?: boolean; path?: string[]; stale?: boolean; limit: string }) => {
			const limit = Number(flags.limit);
			if (!Number.isInteger(limit) || limit < 1 || limit > 50) throw new UsageError(`--limit must be a whole number from 1 to 50, got ${JSON.stringify(flags.limit)}`);
			if (query.trim() === "") throw new UsageError("<query> must not be empty");
			const where = await whereOf(flags);
			const { searchMemory } = await import("../../runtime/memory-admin.js");
			const hits = await withRuntime(flags.stateDir, (rt) => searchMemory(rt.store, where, { text: query, paths: flags.path ?? [], limit, includeStale: flags.stale === true }), true);
			for (const hit of hits) {
				const safe = { ...hit, record: shown(hit.record, false) };
				out(flags.json ? `${JSON.stringify({ score: safe.score, record: safe.record })}\n` : hitText(safe, flags.explain === true));
			}
			if (!flags.json && hits.length === 0) out(shownLines([`no memory matches ${JSON.stringify(query)}`]));
			process.exitCode = EXIT.ok;
		});
	memory
		.command("show")
		.description("one record in full: label, writer (session and call), times, metadata and content")
		.argument("<id>", "the record's id")
		.option("--state-dir <dir>", "state directory (default $WARDEN_HOME)")
		.option("--reveal", "print a secret record's text")
		.option("--json", "the record as JSON")
		.action(async (id: string, flags: { stateDir?: string; reveal?: boolean; json?: boolean }) => {
			const { showMemory } = await import("../../runtime/memory-admin.js");
			const row = shown(await withRuntime(flags.stateDir, (rt) => showMemory(rt.store, id), true), flags.reveal === true);
			out(flags.json ? `${JSON.stringify(row)}\n` : showText(row));
			process.exitCode = EXIT.ok;
		});
	whereOptions(memory.command("forget").description("remove a record (or every expired one with --expired); each removal is an audit record"))
		.argument("[id]", "the record's id")
		.option("--expired", "forget every expired record of the workspace's scopes")
		.action(async (id: string | undefined, flags: WhereFlags & { expired?: boolean }) => {
			if ((id === undefined) === (flags.expired !== true)) throw new UsageError("forget takes either a record id or --expired (exactly one of them)");
			const admin = await import("../../runtime/memory-admin.js");
			const where = flags.expired ? await whereOf(flags) : undefined;
			const rows = await withRuntime(flags.stateDir, async (rt) => (where ? admin.forgetExpired(rt.store, where, "cli") : [await admin.forgetMemory(rt.store, id!, "cli")]), false);
			for (const row of rows) out(flags.json ? `${JSON.stringify({ forgotten: row.id, scope: row.scope, namespace: row.namespace })}\n` : shownLines([`forgot ${row.id} (${row.scope}/${row.namespace})`]));
			if (!flags.json && rows.length === 0) out(shownLines(["no expired memory records"]));
			process.exitCode = EXIT.ok;
		});
	memory
		.command("stale")
		.description("mark a record stale (it sinks in the ranking and is left out unless asked for), or fresh again with --undo; recorded in the audit")
		.argument("<id>", "the record's id")
		.option("--undo", "mark it fresh again")
		.option("--state-dir <dir>", "state directory (default $WARDEN_HOME)")
		.action(async (id: string, flags: { stateDir?: string; undo?: boolean }) => {
			const { markMemoryStale } = await import("../../runtime/memory-admin.js");
			const row = await withRuntime(flags.stateDir, (rt) => markMemoryStale(rt.store, id, flags.undo !== true, "cli"), false);
			out(shownLines([`${row.id} is ${row.stale ? "stale" : "fresh"}`]));
			process.exitCode = EXIT.ok;
		});
}
