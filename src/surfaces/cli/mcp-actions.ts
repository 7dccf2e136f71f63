/** What `warden mcp …` does (declared in mcp-command.ts): resolve the servers, review, pin, revoke, print. */
import { homedir } from "node:os";
import type { McpServerSummary } from "../../runtime/mcp/mcp-session-tools.js";
import type { McpEntryReview } from "../../runtime/mcp/mcp-entry-review.js";
import type { McpDefinitionReview, McpToolReview } from "../../runtime/mcp/mcp-review.js";
import type { McpServerConfig } from "../../runtime/mcp/mcp-server-config.js";
import { approveMcpTools, inspectMcpServers, McpApprovalError, revokeMcpTools } from "../../runtime/mcp/mcp-approvals.js";
import { Runtime } from "../../runtime/runtime.js";
import { resolveCliConfig } from "./cli-config.js";
import { UsageError } from "./cli-error.js";
import type { McpCliFlags } from "./mcp-command.js";
import { contentLines, shownLines } from "./shown-lines.js";

async function servers(flags: McpCliFlags): Promise<{ workspace: string; servers: McpServerConfig[] }> {
	const config = await resolveCliConfig({ workspace: flags.workspace, projectConfig: flags.projectConfig, allow: [], ask: [], deny: [], ...(flags.config ? { config: flags.config } : {}) }, process.env);
	return { workspace: config.workspace, servers: config.mcpServers ?? [] };
}

async function withRuntime<T>(flags: McpCliFlags, readOnly: boolean, body: (runtime: Runtime) => Promise<T>): Promise<T> {
	const runtime = await Runtime.open({ ...(flags.stateDir ? { stateDir: flags.stateDir } : {}), readOnly });
	try {
		return await body(runtime);
	} catch (err) {
		if (err instanceof McpApprovalError) throw new UsageError(err.message);
		throw err;
	} finally {
		await runtime.close();
	}
}

async function review(flags: McpCliFlags, runtime: Runtime): Promise<{ workspace: string; summaries: McpServerSummary[] }> {
	const { workspace, servers: configs } = await servers(flags);
	return { workspace, summaries: await inspectMcpServers({ store: runtime.store, workspace, home: homedir(), servers: configs, stateDir: runtime.stateDir }) };
}

const MARK: Record<McpToolReview["status"], string> = { approved: "approved", new: "new     ", changed: "CHANGED ", excluded: "excluded", denied: "denied  ", collision: "COLLIDES" };

function toolJson(t: McpDefinitionReview, full: boolean): Record<string, unknown> {
	return {
		tool: t.tool,
		...("name" in t ? { name: (t as McpToolReview).name } : { kind: (t as McpEntryReview).kind }),
		status: t.status,
		digest: t.digest,
		...(t.approvedDigest ? { approved_digest: t.approvedDigest } : {}),
		...(t.why ? { why: t.why } : {}),
		flags: t.flags,
		...(full ? { definition: t.definition, ...(t.diff ? { diff: t.diff } : {}) } : {}),
	};
}

function serverHead(s: McpServerSummary): string {
	const how = s.error ? `NOT STARTED: ${s.error}` : `${s.transport}${s.sandboxed ? ", sandboxed" : ""}`;
	return `${s.server}  (${how})  from ${s.source}`;
}

function flagText(t: McpDefinitionReview): string {
	return t.flags.length ? `  FLAGGED: ${[...new Set(t.flags.map((f) => f.rule))].join(", ")}` : "";
}

export async function listAction(flags: McpCliFlags, out: (text: string) => void): Promise<void> {
	const { summaries } = await withRuntime(flags, true, (rt) => review(flags, rt));
	if (summaries.length === 0) {
		out(flags.json ? "" : shownLines(["no MCP servers are configured for this workspace"]));
		return;
	}
	// A name two tools share is refused in every session: said before one starts.
	if (!flags.json) for (const why of new Set(summaries.flatMap((s) => s.tools).flatMap((t) => (t.status === "collision" && t.why ? [t.why] : [])))) out(shownLines([`warning: ${why}`]));
	for (const s of summaries) {
		if (flags.json) {
			out(`${JSON.stringify({ server: s.server, source: s.source, transport: s.transport, sandboxed: s.sandboxed, ...(s.error ? { error: s.error } : {}), tools: s.tools.map((t) => toolJson(t, false)), entries: (s.entries ?? []).map((e) => toolJson(e, false)), ...(s.entriesError ? { entries_error: s.entriesError } : {}), reads: (s.reads ?? []).map((r) => ({ name: r.name, status: r.status, ...(r.why ? { why: r.why } : {}) })) })}\n`);
			continue;
		}
		out(shownLines([serverHead(s)]));
		for (const t of s.tools) out(shownLines([`  ${MARK[t.status]}  ${t.name}  ${t.digest.slice(0, 12)}${t.why ? `  (${t.why})` : ""}${flagText(t)}`]));
		// Resources and prompts: Warden's own read tools, offered without approval (what they reach is pinned below).
		for (const r of s.reads ?? []) out(shownLines([`  ${r.status === "offered" ? "read    " : r.status.padEnd(8)}  ${r.name}${r.why ? `  (${r.why})` : ""}`]));
		// Their resources, templates and prompts: pinned like tools; only approved ones are listed to the model in full and usable.
		if (s.entriesError) out(shownLines([`  its resources and prompts could not be listed for review: ${s.entriesError}`]));
		for (const e of s.entries ?? []) out(shownLines([`  ${MARK[e.status]}  ${e.tool}  ${e.digest.slice(0, 12)}${e.why ? `  (${e.why})` : ""}${flagText(e)}`]));
	}
}

export async function showAction(server: string, tool: string | undefined, flags: McpCliFlags, out: (text: string) => void): Promise<void> {
	const { summaries } = await withRuntime(flags, true, (rt) => review(flags, rt));
	const summary = summaries.find((s) => s.server === server);
	if (!summary) throw new UsageError(`no MCP server ${JSON.stringify(server)} is configured for this workspace (configured: ${summaries.map((s) => s.server).join(", ") || "none"})`);
	if (summary.error) throw new UsageError(`MCP server ${server}: ${summary.error}`);
	const all: McpDefinitionReview[] = [...summary.tools, ...(summary.entries ?? [])];
	const tools = tool === undefined ? all : all.filter((t) => t.tool === tool);
	if (tool !== undefined && tools.length === 0) throw new UsageError(`MCP server ${server} lists no tool or entry ${JSON.stringify(tool)}`);
	for (const t of tools) {
		if (flags.json) {
			out(`${JSON.stringify(toolJson(t, true))}\n`);
			continue;
		}
		out(shownLines([`${"name" in t ? (t as McpToolReview).name : t.tool}  ${t.status}  sha256 ${t.digest}${t.approvedDigest ? `  (approved: ${t.approvedDigest})` : ""}`]));
		for (const f of t.flags) out(shownLines([`  FLAGGED ${f.rule}: ${f.field} ${f.says}`]));
		if (t.diff) out(shownLines(contentLines(t.diff)));
		// Spelled stricter than the display rule (every non-ASCII character), so a look-alike in a definition is seen.
		else out(`${JSON.stringify(t.definition, null, 2).replace(/[^\x20-\x7E\n]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`)}\n`);
	}
}

export async function approveAction(server: string, tools: string[], flags: McpCliFlags, out: (text: string) => void): Promise<void> {
	const { workspace, servers: configs } = await servers(flags);
	const pins = await withRuntime(flags, false, (rt) =>
		approveMcpTools({ store: rt.store, workspace, home: homedir(), servers: configs, stateDir: rt.stateDir, server, by: "cli", ...(tools.length ? { tools } : {}), ...(flags.digest ? { digest: flags.digest } : {}) }),
	);
	if (pins.length === 0) out(shownLines([`nothing to approve: every ${tools.length ? "named " : ""}definition of ${server} is approved as it is`]));
	for (const pin of pins) {
		const flagged = JSON.parse(pin.flags) as string[];
		out(shownLines([`approved ${server}/${pin.tool}  sha256 ${pin.digest}${flagged.length ? `  (flagged: ${flagged.join(", ")})` : ""}`]));
	}
}

export async function revokeAction(server: string, tool: string | undefined, flags: McpCliFlags, out: (text: string) => void): Promise<void> {
	const { workspace } = await servers(flags);
	const revoked = await withRuntime(flags, false, (rt) => revokeMcpTools({ store: rt.store, workspace, server, ...(tool !== undefined ? { tool } : {}), by: "cli" }));
	if (revoked.length === 0) throw new UsageError(`no approved ${tool === undefined ? "tool" : `tool ${tool}`} of ${server} in ${workspace}`);
	for (const pin of revoked) out(shownLines([`revoked ${server}/${pin.tool}  sha256 ${pin.digest}`]));
}
