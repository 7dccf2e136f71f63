/**
 * A session's MCP servers and the tools they contribute: started when the session opens (a project's
 * servers only reach here once the workspace is trusted: src/config/mcp-servers.ts), reviewed
 * against the workspace's pins, and only approved definitions registered, as `mcp__<server>__<tool>`.
 * What was started, offered and withheld (with why) is one `mcp.servers` audit record. When a
 * server says its tool list changed, the list is read and reviewed again: a tool whose definition
 * no longer matches its pin leaves the registry at once (`mcp.tools_changed`). A server's
 * elicitation request goes to the host through human.ask; with nobody to ask it is declined.
 * Resources, templates and prompts are reviewed against their pins too (mcp-entry-review.ts), and
 * the kernel's mcp.read asks the router which listed definitions are not approved. A definition
 * that is new or changed may be approved in the chat (mcp-review-asks.ts): pending() names those
 * not yet asked about, approve() pins one only if the server still lists it with the digest shown.
 */
import type { PolicyContext } from "../../kernel/admission/types.js";
import type { Authority } from "../../kernel/authority/authority.js";
import type { EvidenceRecorder } from "../../kernel/evidence/evidence-recorder.js";
import type { McpRouter } from "../../kernel/kernel-mcp.js";
import { createHumanPrimitives } from "../../kernel/kernel-human.js";
import { sandboxProtectedMatch, sandboxProtectedRoots } from "../../kernel/protected/sandbox-roots.js";
import type { McpConnectOptions } from "../../providers/mcp/mcp-connection.js";
import { oauthFile } from "../../providers/mcp/mcp-oauth.js";
import { McpServerSet } from "../../providers/mcp/mcp-server-set.js";
import type { McpElicitation, McpElicitationAnswer } from "../../providers/mcp/mcp-types.js";
import { probeSandbox } from "../../providers/sandbox/sandbox-probe.js";
import type { Store } from "../../store/store.js";
import { mcpReadTool } from "../../tools/mcp-read-tools.js";
import { mcpTool } from "../../tools/mcp-tool.js";
import { mcpServerNameProblem } from "../../tools/mcp-tool-name.js";
import type { ToolRegistry } from "../../tools/registry.js";
import type { ToolDefinition } from "../../tools/tool.js";
import { type McpReadToolReview, reviewReadTools } from "./mcp-read-review.js";
import type { McpListMethod } from "../../kernel/mcp/entry-definition.js";
import type { McpPinRow } from "../../store/mcp-pins.js";
import { entryReviewsOrError, listEntryReviews, type McpEntryReview, offeredListings, reviewEntries, unapprovedWhy } from "./mcp-entry-review.js";
import { markCollisions } from "./mcp-name-collisions.js";
import { type McpDefinitionReview, type McpToolReview, reviewTools } from "./mcp-review.js";
import type { McpServerConfig } from "./mcp-server-config.js";

export const DEFAULT_MCP_TOOL_TIMEOUT_MS = 60_000;

/** The host's answer to a server's request for input; absent, every request is declined. */
export type ElicitCallback = (request: McpElicitation, signal: AbortSignal) => Promise<McpElicitationAnswer>;

export interface McpSessionDeps {
	configs: readonly McpServerConfig[];
	store: Store;
	recorder: EvidenceRecorder;
	policy: PolicyContext;
	authority: Authority;
	elicit?: ElicitCallback | undefined;
	/** Where OAuth servers' tokens are kept (src/providers/mcp/mcp-oauth.ts). */
	stateDir?: string | undefined;
}

export interface McpServerSummary {
	server: string;
	source: string;
	transport?: string;
	sandboxed: boolean;
	error?: string;
	tools: McpToolReview[];
	/** The governed read tools of its resources and prompts, offered or not (with why). */
	reads?: McpReadToolReview[];
	/** Its resources, templates and prompts reviewed against their pins (those its offered read tools reach). */
	entries?: McpEntryReview[];
	/** Why its listings could not be read for the review (its tools are still reviewed and offered). */
	entriesError?: string;
}

/** A definition the in-chat review asks about: a tool's, or a resource's, template's or prompt's. */
export type McpReviewed = McpToolReview | McpEntryReview;

/** What an in-chat approval did: pinned, or refused because the server now lists another definition. */
export type McpReviewOutcome = { pinned: McpPinRow } | { stale: string } | { gone: string };

function withheldRecord(r: McpDefinitionReview): Record<string, unknown> {
	return {
		tool: r.tool,
		status: r.status,
		digest: r.digest,
		...(r.why ? { why: r.why } : {}),
		...(r.approvedDigest ? { approved_digest: r.approvedDigest } : {}),
		...(r.flags.length ? { flags: [...new Set(r.flags.map((f) => f.rule))] } : {}),
	};
}

export class McpSessionTools {
	private registry: ToolRegistry | undefined;
	/** Names registered with the session's registry and not withdrawn since. */
	private readonly offered = new Set<string>();
	private refreshing: Promise<void> = Promise.resolve();

	/**
	 * The router mcp.call dispatches to. A server announces a list change before it answers the call
	 * that caused it, so waiting for the re-read here means the result reaches the model only once
	 * the registry no longer offers a tool that changed.
	 */
	readonly router: McpRouter = {
		callTool: async (server, tool, args, options) => {
			const result = await this.servers.callTool(server, tool, args, options);
			await this.settled();
			return result;
		},
		read: (server, request, options) => this.servers.read(server, request, options),
		unapproved: async (server, method, entries) => {
			// Read at each request: an approval given in another terminal counts at once.
			const pins = await this.deps.store.mcpPins.list({ workspace: this.deps.policy.workspace, server });
			return reviewEntries(server, method, entries, pins).map(unapprovedWhy);
		},
	};
	/** Definitions (server, key and digest) already asked about in this session: each is asked once. */
	private readonly asked = new Set<string>();

	private constructor(
		private readonly deps: McpSessionDeps,
		readonly servers: McpServerSet,
		readonly summaries: McpServerSummary[],
	) {}

	static async open(deps: McpSessionDeps): Promise<McpSessionTools> {
		const onChange = { handler: (_server: string) => {} };
		const refused: McpServerSummary[] = [];
		const options: McpConnectOptions[] = [];
		for (const config of deps.configs) {
			const connect = await connectOptions(config, deps.policy, { changed: (server) => onChange.handler(server), elicit: (request) => elicit(deps, request), stateDir: deps.stateDir });
			if (typeof connect === "string") refused.push({ server: config.name, source: config.source, sandboxed: config.sandbox, error: connect, tools: [] });
			else options.push(connect);
		}
		const servers = await McpServerSet.start(options);
		const pins = await deps.store.mcpPins.list({ workspace: deps.policy.workspace });
		const summaries: McpServerSummary[] = [];
		for (const config of deps.configs) {
			const denied = refused.find((r) => r.server === config.name);
			if (denied) {
				summaries.push(denied);
				continue;
			}
			const failure = servers.failures.find((f) => f.server === config.name);
			const connection = servers.get(config.name);
			if (failure || !connection) {
				summaries.push({ server: config.name, source: config.source, sandboxed: config.sandbox, error: failure?.error ?? "not connected", tools: [] });
				continue;
			}
			try {
				const listed = await connection.listTools();
				const tools = reviewTools(config, listed, pins, deps.policy);
				const reads = reviewReadTools(config, connection.offers, listed, deps.policy);
				const entries = await entryReviewsOrError(connection, config.name, readListings(reads), pins);
				summaries.push({ server: config.name, source: config.source, transport: connection.transport, sandboxed: config.sandbox && config.transport.type === "stdio", tools, reads, ...entries });
			} catch (err) {
				summaries.push({ server: config.name, source: config.source, sandboxed: config.sandbox, error: err instanceof Error ? err.message : String(err), tools: [] });
			}
		}
		markCollisions(summaries);
		const session = new McpSessionTools(deps, servers, summaries);
		onChange.handler = (server) => session.toolsChanged(server);
		await deps.recorder.audit(
			"mcp.servers",
			{
				servers: summaries.map((s) => ({
					server: s.server,
					source: s.source,
					sandboxed: s.sandboxed,
					...(s.transport ? { transport: s.transport } : {}),
					...(s.error ? { error: s.error } : {}),
					offered: s.tools.filter((t) => t.status === "approved").map((t) => t.name),
					withheld: s.tools.filter((t) => t.status !== "approved").map(withheldRecord),
					...(s.reads?.length
						? {
								reads_offered: s.reads.filter((r) => r.status === "offered").map((r) => r.name),
								reads_withheld: s.reads.filter((r) => r.status !== "offered").map((r) => ({ tool: r.row.suffix, status: r.status, why: r.why })),
							}
						: {}),
					...(s.entries?.some((e) => e.status !== "approved") ? { entries_withheld: s.entries.filter((e) => e.status !== "approved").map(withheldRecord) } : {}),
					...(s.entriesError ? { entries_error: s.entriesError } : {}),
				})),
			},
			undefined,
			0,
		);
		return session;
	}

	/** Whether the model is offered this tool now. */
	isOffered(name: string): boolean {
		return this.offered.has(name);
	}

	/** The approved tools, as the model will see them. */
	tools(): ToolDefinition[] {
		return this.summaries.flatMap((s) => {
			const config = this.deps.configs.find((c) => c.name === s.server)!;
			const timeoutMs = config.timeoutMs ?? DEFAULT_MCP_TOOL_TIMEOUT_MS;
			const reads = (s.reads ?? []).filter((r) => r.status === "offered").map((r) => mcpReadTool(config.name, r.row, timeoutMs));
			return [...s.tools.filter((t) => t.status === "approved").map((t) => toolOf(config, t)), ...reads];
		});
	}

	/** Registers the approved tools; later list changes remove what no longer matches its pin. */
	attach(registry: ToolRegistry): void {
		this.registry = registry;
		for (const tool of this.tools()) {
			registry.register(tool);
			this.offered.add(tool.name);
		}
	}

	/** Waits for list re-reads in progress (tests, and closing). */
	settled(): Promise<void> {
		return this.refreshing;
	}

	private toolsChanged(server: string): void {
		this.refreshing = this.refreshing.then(() => this.refresh(server)).catch(() => undefined);
	}

	private async refresh(server: string): Promise<void> {
		const connection = this.servers.get(server);
		const config = this.deps.configs.find((c) => c.name === server);
		const summary = this.summaries.find((s) => s.server === server);
		if (!connection || !config || !summary) return;
		connection.markStale();
		const pins = await this.deps.store.mcpPins.list({ workspace: this.deps.policy.workspace, server });
		const now = reviewTools(config, await connection.listTools(), pins, this.deps.policy);
		const previous = summary.tools;
		const before = new Set(previous.map((t) => t.tool));
		summary.tools = now;
		markCollisions(this.summaries);
		const withdrawn: Record<string, unknown>[] = [];
		// Tools listed mid-session are never added: what the model sees was settled when the session opened.
		for (const old of previous) {
			if (!this.offered.has(old.name)) continue;
			const current = now.find((t) => t.tool === old.tool);
			if (current?.status === "approved") continue;
			this.registry?.remove(old.name);
			this.offered.delete(old.name);
			withdrawn.push(current ? withheldRecord(current) : { tool: old.tool, status: "removed", digest: old.digest });
		}
		await this.deps.recorder.audit("mcp.tools_changed", { server, withdrawn, listed_new: now.filter((t) => !before.has(t.tool)).map((t) => t.tool) });
	}

	/** New or changed definitions (tools first, then entries) not yet asked about in this session. */
	pending(): McpReviewed[] {
		const out: McpReviewed[] = [];
		for (const s of this.summaries) {
			for (const review of [...s.tools, ...(s.entries ?? [])]) {
				if (review.status !== "new" && review.status !== "changed") continue;
				const key = `${review.server}\u0000${review.tool}\u0000${review.digest}`;
				if (this.asked.has(key)) continue;
				this.asked.add(key);
				out.push(review);
			}
		}
		return out;
	}

	/**
	 * Pins a definition a human approved in the chat, only if the server lists it now with the digest
	 * they were shown: the listing is read again first, so a definition that changed between the ask
	 * and the answer is not approved by that answer. An approved tool is offered from the next step.
	 */
	async approve(review: McpReviewed, pin: (current: McpReviewed) => Promise<McpPinRow>): Promise<McpReviewOutcome> {
		await this.settled();
		const connection = this.servers.get(review.server);
		const config = this.deps.configs.find((c) => c.name === review.server);
		const summary = this.summaries.find((s) => s.server === review.server);
		if (!connection || !config || !summary) return { gone: `MCP server ${review.server} is not connected` };
		const pins = await this.deps.store.mcpPins.list({ workspace: this.deps.policy.workspace, server: review.server });
		let current: McpReviewed | undefined;
		try {
			if ("info" in review) {
				connection.markStale();
				const listed = reviewTools(config, await connection.listTools(), pins, this.deps.policy);
				markCollisions([{ server: review.server, source: config.source, tools: listed }, ...this.summaries.filter((s) => s.server !== review.server)]);
				current = listed.find((t) => t.tool === review.tool);
				if (current?.status === "collision") return { gone: current.why ?? `tool ${review.tool} of ${review.server} shares its name with another tool` };
			} else {
				current = (await listEntryReviews(connection, review.server, [review.kind === "prompt" ? "prompts/list" : "resources/list"], pins)).find((e) => e.tool === review.tool);
			}
		} catch (err) {
			return { gone: `MCP server ${review.server} could not list its definitions again: ${err instanceof Error ? err.message : String(err)}` };
		}
		if (!current) return { stale: "absent" };
		if (current.digest !== review.digest) return { stale: current.digest };
		const pinned = await pin(current);
		if ("info" in current) {
			const tool = current;
			summary.tools = summary.tools.map((t) => (t.tool === tool.tool ? { ...tool, status: "approved" } : t));
			if (this.registry && !this.offered.has(tool.name)) {
				this.registry.register(toolOf(config, tool));
				this.offered.add(tool.name);
			}
		} else {
			const entry = current;
			summary.entries = (summary.entries ?? []).map((e) => (e.tool === entry.tool ? { ...entry, status: "approved" } : e));
		}
		return { pinned };
	}

	async close(): Promise<void> {
		await this.refreshing;
		await this.servers.close();
	}
}

function toolOf(config: McpServerConfig, review: McpToolReview): ToolDefinition {
	return mcpTool({
		server: config.name,
		tool: review.tool,
		description: review.info.description,
		inputSchema: review.info.inputSchema,
		timeoutMs: config.timeoutMs ?? DEFAULT_MCP_TOOL_TIMEOUT_MS,
	});
}

/** The listings a session reviews: those its offered read tools reach. */
function readListings(reads: readonly McpReadToolReview[]): McpListMethod[] {
	const offered = new Set(reads.filter((r) => r.status === "offered").map((r) => r.row.capability));
	return offeredListings({ resources: offered.has("resources"), prompts: offered.has("prompts") });
}

/** What starting a server needs to know of the session's policy. */
export type McpStartPolicy = Pick<PolicyContext, "workspace" | "home" | "sandbox" | "protectedPaths">;

/** How to connect one server, or why it is not started (a sandbox it requires is not there). */
export async function connectOptions(
	config: McpServerConfig,
	policy: McpStartPolicy,
	hooks: { changed?: (server: string) => void; elicit?: (request: McpElicitation) => Promise<McpElicitationAnswer>; stateDir?: string | undefined } = {},
): Promise<McpConnectOptions | string> {
	// A host that builds configs itself (embedding, eval) meets the same rule as the config files.
	const badName = mcpServerNameProblem(config.name);
	if (badName !== undefined) return `not started: the server name ${JSON.stringify(config.name)} cannot name its tools unambiguously: ${badName}`;
	const options: McpConnectOptions = { name: config.name, transport: config.transport, workspace: policy.workspace };
	const { changed, elicit, stateDir } = hooks;
	if (config.transport.type !== "stdio" && config.transport.oauth && stateDir) options.oauthFile = oauthFile(stateDir, config.name, config.transport.url);
	if (changed) options.onToolsChanged = () => changed(config.name);
	if (elicit) options.onElicit = elicit;
	if (!config.sandbox || config.transport.type !== "stdio") return options;
	const probe = policy.sandbox?.available ? await probeSandbox(policy.sandbox.provider) : undefined;
	if (!probe?.available) {
		const why = probe && !probe.available ? probe.reason : (policy.sandbox?.reason ?? "no sandbox (bubblewrap or Landlock) is available");
		return `not started: its config asks for the sandbox and there is none (${why})`;
	}
	options.sandbox = {
		program: { provider: probe.provider, program: probe.program },
		profile: {
			name: "workspace-write",
			workspace: policy.workspace,
			network: config.network === true,
			home: policy.home,
			protect: policy.sandbox?.protect,
			protectedRoots: sandboxProtectedRoots(policy.protectedPaths),
			protectedMatch: sandboxProtectedMatch(policy.protectedPaths),
		},
	};
	return options;
}

async function elicit(deps: McpSessionDeps, request: McpElicitation): Promise<McpElicitationAnswer> {
	const answerWith = async (answer: McpElicitationAnswer, asked: boolean) => {
		await deps.recorder.audit("mcp.elicitation", {
			server: request.server,
			message: request.message,
			asked,
			action: answer.action,
			...(answer.action === "accept" ? { fields: Object.keys(answer.content) } : {}),
		});
		return answer;
	};
	if (!deps.elicit) return answerWith({ action: "decline" }, false);
	const human = createHumanPrimitives({ channel: "host", answer: deps.elicit, authority: deps.authority.forCall({ approved: false }) });
	try {
		return await answerWith(await human.ask(request, new AbortController().signal), true);
	} catch {
		return answerWith({ action: "decline" }, true);
	}
}

/** The session's MCP servers started and reviewed, or undefined when it has none. */
export async function openSessionMcp(
	options: { mcpServers?: readonly McpServerConfig[] | undefined; elicit?: ElicitCallback | undefined },
	deps: Omit<McpSessionDeps, "configs" | "elicit">,
): Promise<McpSessionTools | undefined> {
	if (!options.mcpServers?.length) return undefined;
	return McpSessionTools.open({ ...deps, configs: options.mcpServers, elicit: options.elicit });
}
