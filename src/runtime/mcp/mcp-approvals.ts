/**
 * What `warden mcp list|show|approve|revoke` and embedding hosts do with a workspace's MCP tools
 * outside a session: connect to the configured servers (sandboxed as a session would), review each
 * tool against its pin, pin the definition a human approves — only the one the server lists at that
 * moment, and only if it still has the digest the human was shown when they name one — and revoke.
 * Resources, resource templates and prompts are pinned alike, each under its key (`prompt:<name>`,
 * `resource:<uri>`, `resource-template:<template>`). Each approval and revocation is an audit
 * record of the host.
 */
import { McpServerSet } from "../../providers/mcp/mcp-server-set.js";
import { probeSandbox } from "../../providers/sandbox/sandbox-probe.js";
import type { McpPinRow, McpRefusalRow } from "../../store/mcp-pins.js";
import type { Store } from "../../store/store.js";
import { entryReviewsOrError, offeredListings } from "./mcp-entry-review.js";
import { pinDefinition } from "./mcp-pin-write.js";
import { reviewReadTools } from "./mcp-read-review.js";
import { markCollisions } from "./mcp-name-collisions.js";
import { type McpDefinitionReview, reviewTools } from "./mcp-review.js";
import type { McpServerConfig } from "./mcp-server-config.js";
import { connectOptions, type McpServerSummary } from "./mcp-session-tools.js";

export interface McpInspectOptions {
	store: Store;
	/** Real path of the workspace. */
	workspace: string;
	home: string;
	servers: readonly McpServerConfig[];
	/** Where OAuth servers' tokens are kept; without it an OAuth server is reported as not started. */
	stateDir?: string;
}

/** A bad server or tool name, a digest that no longer matches, a tool that is not listed. */
export class McpApprovalError extends Error {
	override name = "McpApprovalError";
}

/** Connects to every server, reviews its tools against the workspace's pins, and disconnects. */
export async function inspectMcpServers(opts: McpInspectOptions): Promise<McpServerSummary[]> {
	const probe = await probeSandbox();
	const policy = {
		workspace: opts.workspace,
		home: opts.home,
		sandbox: probe.available ? { available: true, provider: probe.provider } : { available: false, reason: probe.reason },
	};
	const summaries: McpServerSummary[] = [];
	const starts = [];
	for (const config of opts.servers) {
		// The client offers what a session's does (elicitation included): a server may list tools by what its client can do.
		const connect = await connectOptions(config, policy, { stateDir: opts.stateDir, elicit: async () => ({ action: "decline" }) });
		if (typeof connect === "string") summaries.push({ server: config.name, source: config.source, sandboxed: config.sandbox, error: connect, tools: [] });
		else starts.push(connect);
	}
	const set = await McpServerSet.start(starts);
	try {
		const pins = await opts.store.mcpPins.list({ workspace: opts.workspace });
		const refusals = await opts.store.mcpPins.refusals({ workspace: opts.workspace });
		for (const config of opts.servers) {
			if (summaries.some((s) => s.server === config.name)) continue;
			const connection = set.get(config.name);
			const failure = set.failures.find((f) => f.server === config.name);
			if (!connection) {
				summaries.push({ server: config.name, source: config.source, sandboxed: config.sandbox, error: failure?.error ?? "not connected", tools: [] });
				continue;
			}
			try {
				const listed = await connection.listTools();
				const tools = reviewTools(config, listed, pins);
				const reads = reviewReadTools(config, connection.offers, listed);
				const entries = await entryReviewsOrError(connection, config.name, offeredListings(connection.offers), pins);
				markRefused([...tools, ...("entries" in entries ? entries.entries : [])], refusals);
				summaries.push({ server: config.name, source: config.source, transport: connection.transport, sandboxed: config.sandbox && config.transport.type === "stdio", tools, reads, ...entries });
			} catch (err) {
				summaries.push({ server: config.name, source: config.source, sandboxed: config.sandbox, error: err instanceof Error ? err.message : String(err), tools: [] });
			}
		}
	} finally {
		await set.close();
	}
	const ordered = opts.servers.map((c) => summaries.find((s) => s.server === c.name)!);
	markCollisions(ordered);
	return ordered;
}

/** A new or changed definition someone refused for good says so: sessions withhold it without asking. */
function markRefused(reviews: McpDefinitionReview[], refusals: readonly McpRefusalRow[]): void {
	for (const review of reviews) {
		if (review.status !== "new" && review.status !== "changed") continue;
		const held = refusals.find((r) => r.server === review.server && r.tool === review.tool && r.digest === review.digest);
		if (held) review.why = `refused always by ${held.refused_by} at ${held.refused_at}; warden mcp approve allows it`;
	}
}

export interface McpApproveRequest extends McpInspectOptions {
	server: string;
	/** Tools (or entries' keys, `prompt:<name>`…) to approve; absent: every definition the server lists that is new or changed. */
	tools?: readonly string[];
	/** The digest the human was shown (one tool only): refused if the server now lists another. */
	digest?: string;
	/** Who approved, for the record (`cli`, a user name). */
	by: string;
}

/** Pins what the server lists now; returns the new pins. Tools already approved as they are stay as they are. */
export async function approveMcpTools(req: McpApproveRequest): Promise<McpPinRow[]> {
	const config = req.servers.find((s) => s.name === req.server);
	if (!config) throw new McpApprovalError(`no MCP server ${JSON.stringify(req.server)} is configured for ${req.workspace} (configured: ${req.servers.map((s) => s.name).join(", ") || "none"})`);
	if (req.digest !== undefined && req.tools?.length !== 1) throw new McpApprovalError("a digest names one tool's definition: give exactly one tool with it");
	const [summary] = await inspectMcpServers({ ...req, servers: [config] });
	if (summary!.error) throw new McpApprovalError(`MCP server ${req.server}: ${summary!.error}`);
	const reviews: McpDefinitionReview[] = [...summary!.tools, ...(summary!.entries ?? [])];
	for (const wanted of req.tools ?? []) {
		if (!reviews.some((r) => r.tool === wanted)) throw new McpApprovalError(`MCP server ${req.server} lists no tool or entry ${JSON.stringify(wanted)} (it lists: ${reviews.map((r) => r.tool).join(", ")})`);
	}
	const chosen = reviews.filter((r) => (req.tools ? req.tools.includes(r.tool) : r.status === "new" || r.status === "changed"));
	if (req.digest !== undefined && chosen[0]!.digest !== req.digest) {
		throw new McpApprovalError(`tool ${chosen[0]!.tool} of ${req.server} now has digest ${chosen[0]!.digest}, not ${req.digest}: review it again (warden mcp show ${req.server} ${chosen[0]!.tool})`);
	}
	const pinned: McpPinRow[] = [];
	const audit = async (kind: "mcp.tool_approved", data: Record<string, unknown>) => {
		await req.store.appendAudit({ session: "host", turn: 0, kind, data });
	};
	for (const review of chosen) {
		if (review.status === "approved") continue;
		pinned.push(await pinDefinition({ store: req.store, workspace: req.workspace, by: req.by, audit }, review));
	}
	return pinned;
}

/** Revokes the live pins of one tool, or of every tool of the server; the tools are withheld again from the next session. */
export async function revokeMcpTools(req: { store: Store; workspace: string; server: string; tool?: string; by: string }): Promise<McpPinRow[]> {
	const revoked = await req.store.mcpPins.revoke({ workspace: req.workspace, server: req.server, ...(req.tool !== undefined ? { tool: req.tool } : {}) }, new Date().toISOString(), req.by);
	for (const pin of revoked) {
		await req.store.appendAudit({ session: "host", turn: 0, kind: "mcp.tool_revoked", data: { workspace: req.workspace, server: req.server, tool: pin.tool, digest: pin.digest, by: req.by } });
	}
	return revoked;
}
