/**
 * One connection to an MCP server through the official SDK client: a stdio process (optionally
 * started inside the shell sandbox's profile), or Streamable HTTP with the legacy SSE transport as
 * the fallback. The client offers `roots` (the workspace, nothing else) and, when the host can ask
 * someone, `elicitation`. Tool lists are read page by page; a `tools/list_changed` notification
 * marks the list stale and tells the host. A call that the server never answers because it went
 * away throws McpServerGoneError, so the kernel can record that call's effect as unknown.
 */
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
	CallToolResultSchema,
	ElicitRequestSchema,
	ErrorCode,
	ListRootsRequestSchema,
	McpError,
	ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { prepareSandbox, type PreparedSandbox, type SandboxProgram } from "../sandbox/prepare-sandbox.js";
import { hasStoredTokens, McpOAuthProvider } from "./mcp-oauth.js";
import { serverCodeRoots } from "./server-code-roots.js";
import type { SandboxProfile } from "../sandbox/sandbox-profile.js";
import {
	type McpCallResult,
	McpCancelledError,
	McpConnectError,
	type McpContent,
	type McpElicitation,
	type McpElicitationAnswer,
	type McpListEntry,
	type McpReadRequest,
	type McpReadResult,
	McpResultTooLargeError,
	McpServerGoneError,
	type McpServerOffers,
	McpTimeoutError,
	type McpToolInfo,
	type McpTransportSpec,
} from "./mcp-types.js";

export interface McpConnectOptions {
	/** The server's name in the config; it names the connection in errors. */
	name: string;
	transport: McpTransportSpec;
	/** Real path of the workspace: the one root the client offers. */
	workspace: string;
	/** Start a stdio server inside this sandbox (bubblewrap or Landlock) and profile. */
	sandbox?: { program: SandboxProgram; profile: SandboxProfile };
	/** How long connecting and each list request may take (default 30 s). */
	requestTimeoutMs?: number;
	/** A `tools/list_changed` notification arrived. */
	onToolsChanged?: () => void;
	/** Asked for a server's elicitation request; without it the capability is not offered. */
	onElicit?: (request: McpElicitation) => Promise<McpElicitationAnswer>;
	/** Where an OAuth server's registration and tokens are kept (src/providers/mcp/mcp-oauth.ts). */
	oauthFile?: string;
}

export const DEFAULT_MCP_REQUEST_TIMEOUT_MS = 30_000;
/** Pages of tools/list read before giving up on a server that keeps handing out cursors. */
const MAX_LIST_PAGES = 100;
/** Characters of a stdio server's stderr kept for error messages. */
const STDERR_KEPT = 2_000;

const CLIENT_INFO = { name: "warden", version: "1" };

function quote(word: string): string {
	return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The text of an unknown block, as one line a model can read. */
function describeBlock(block: Record<string, unknown>): McpContent {
	const kind = typeof block.type === "string" ? block.type : "unknown";
	if (kind === "text" && typeof block.text === "string") return { type: "text", text: block.text };
	if (kind === "resource" && typeof block.resource === "object" && block.resource !== null) {
		const res = block.resource as Record<string, unknown>;
		if (typeof res.text === "string") return { type: "text", text: res.text };
		return { type: "other", kind, summary: `resource ${String(res.uri ?? "")} (${String(res.mimeType ?? "binary")})` };
	}
	if (kind === "resource_link") return { type: "other", kind, summary: `link to ${String(block.uri ?? "")}` };
	if (kind === "image" || kind === "audio") {
		const bytes = typeof block.data === "string" ? Math.floor((block.data.length * 3) / 4) : 0;
		return { type: "other", kind, summary: `${kind} ${String(block.mimeType ?? "")} (${bytes} bytes)` };
	}
	return { type: "other", kind, summary: `${kind} block` };
}

/** A listed resource, template or prompt, keeping only the fields the read tools show. */
function listEntry(item: Record<string, unknown>): McpListEntry {
	const text = (key: string) => (typeof item[key] === "string" ? { [key]: item[key] as string } : {});
	const args = Array.isArray(item.arguments)
		? {
				arguments: (item.arguments as Record<string, unknown>[]).map((a) => ({
					name: String(a.name ?? ""),
					...(typeof a.description === "string" ? { description: a.description } : {}),
					...(typeof a.required === "boolean" ? { required: a.required } : {}),
				})),
			}
		: {};
	const annotations = typeof item.annotations === "object" && item.annotations !== null && !Array.isArray(item.annotations) ? { annotations: item.annotations as Record<string, unknown> } : {};
	return { name: String(item.name ?? ""), ...text("uri"), ...text("uriTemplate"), ...text("title"), ...text("description"), ...text("mimeType"), ...args, ...annotations };
}

/** What the SDK's stdio ReadBuffer says when a message outgrows it (it then closes the transport). */
const BUFFER_EXCEEDED = /ReadBuffer exceeded maximum size of (\d+) bytes/;

export class McpConnection {
	private gone: string | undefined;
	/** The transport's message limit, once a message went over it. */
	private overLimit: number | undefined;
	private stale = true;
	private tools: McpToolInfo[] = [];
	private constructor(
		readonly name: string,
		private readonly client: Client,
		private readonly timeoutMs: number,
		private readonly cleanup: () => Promise<void>,
		private readonly stderr: { text: string },
		/** `stdio`, `http` or `sse`: what the connection ended up using. */
		readonly transport: "stdio" | "http" | "sse",
	) {}

	static async connect(opts: McpConnectOptions): Promise<McpConnection> {
		const timeoutMs = opts.requestTimeoutMs ?? DEFAULT_MCP_REQUEST_TIMEOUT_MS;
		const stderr = { text: "" };
		const made = (used: McpConnection["transport"], client: Client, cleanup: () => Promise<void>) => {
			const connection = new McpConnection(opts.name, client, timeoutMs, cleanup, stderr, used);
			client.onclose = () => {
				connection.gone ??= `server ${opts.name} closed the connection`;
			};
			client.onerror = (err) => {
				const over = BUFFER_EXCEEDED.exec(err.message);
				if (over) connection.overLimit = Number(over[1]);
			};
			return connection;
		};
		const spec = opts.transport;
		if (spec.type === "stdio") {
			let prepared: PreparedSandbox | undefined;
			let command = spec.command;
			let args = [...spec.args];
			let env: Record<string, string> = { ...spec.env };
			if (opts.sandbox) {
				const profile = { ...opts.sandbox.profile, cwd: spec.cwd, readable: serverCodeRoots(spec.command, spec.args, spec.cwd) };
				prepared = await prepareSandbox(opts.sandbox.program, profile, `exec ${[spec.command, ...spec.args].map(quote).join(" ")}`, spec.env);
				command = prepared.program;
				args = prepared.args;
				env = Object.fromEntries(Object.entries(prepared.env).filter((e): e is [string, string] => e[1] !== undefined));
			}
			const transport = new StdioClientTransport({ command, args, env, cwd: spec.cwd, stderr: "pipe" });
			transport.stderr?.on("data", (chunk: Buffer) => {
				stderr.text = (stderr.text + chunk.toString("utf8")).slice(-STDERR_KEPT);
			});
			const client = McpConnection.client(opts);
			const cleanup = async () => {
				await client.close().catch(() => undefined);
				await prepared?.cleanup();
			};
			const connection = made("stdio", client, cleanup);
			await McpConnection.start(opts, client, transport, timeoutMs, cleanup, stderr);
			return connection;
		}
		const url = McpConnection.url(opts.name, spec.url);
		const requestInit: RequestInit = { headers: { ...spec.headers } };
		const authProvider = McpConnection.oauth(opts, url);
		const auth = authProvider ? { authProvider } : {};
		if (spec.type === "http") {
			const client = McpConnection.client(opts);
			const cleanup = async () => {
				await client.close().catch(() => undefined);
			};
			try {
				const connection = made("http", client, cleanup);
				await client.connect(new StreamableHTTPClientTransport(url, { requestInit, ...auth }), { timeout: timeoutMs });
				return connection;
			} catch (err) {
				await cleanup();
				// A server that only speaks the 2024-11-05 transport answers the POST with 4xx: try SSE once.
				if (!McpConnection.legacyAnswer(err)) throw new McpConnectError(`MCP server ${opts.name} at ${url.origin}: ${McpConnection.message(err)}`);
			}
		}
		const client = McpConnection.client(opts);
		const cleanup = async () => {
			await client.close().catch(() => undefined);
		};
		const connection = made("sse", client, cleanup);
		await McpConnection.start(opts, client, new SSEClientTransport(url, { requestInit, ...auth }), timeoutMs, cleanup, stderr);
		return connection;
	}

	/** The OAuth provider of a server configured for it; without stored tokens a session does not try (a person has to log in first). */
	private static oauth(opts: McpConnectOptions, url: URL): McpOAuthProvider | undefined {
		const spec = opts.transport;
		if (spec.type === "stdio" || !spec.oauth) return undefined;
		if (!opts.oauthFile) throw new McpConnectError(`MCP server ${opts.name} uses OAuth, and this host keeps no state dir for its tokens`);
		if (!hasStoredTokens(opts.oauthFile, url.href)) throw new McpConnectError(`MCP server ${opts.name} needs OAuth authorization: run \`warden mcp login ${opts.name}\``);
		return new McpOAuthProvider({ server: opts.name, url: url.href, file: opts.oauthFile, spec: spec.oauth });
	}

	private static url(name: string, text: string): URL {
		let url: URL;
		try {
			url = new URL(text);
		} catch {
			throw new McpConnectError(`MCP server ${name}: ${JSON.stringify(text)} is not a URL`);
		}
		if (url.protocol !== "http:" && url.protocol !== "https:") throw new McpConnectError(`MCP server ${name}: url must be http: or https:, not ${url.protocol}`);
		return url;
	}

	/** 4xx other than 401/403 on the first POST: the server does not speak Streamable HTTP. */
	private static legacyAnswer(err: unknown): boolean {
		const code = (err as { code?: unknown } | undefined)?.code;
		return typeof code === "number" && code >= 400 && code < 500 && code !== 401 && code !== 403;
	}

	private static message(err: unknown): string {
		const text = err instanceof Error ? err.message : String(err);
		return text.split("\n")[0] ?? text;
	}

	private static client(opts: McpConnectOptions): Client {
		const client = new Client(CLIENT_INFO, { capabilities: { roots: { listChanged: false }, ...(opts.onElicit ? { elicitation: {} } : {}) } });
		const roots = [{ uri: pathToFileURL(opts.workspace).href, name: "workspace" }];
		client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
		const ask = opts.onElicit;
		if (ask) {
			client.setRequestHandler(ElicitRequestSchema, async (request) => {
				const params = request.params as { message?: unknown; requestedSchema?: unknown };
				const answer = await ask({
					server: opts.name,
					message: typeof params.message === "string" ? params.message : "",
					requestedSchema: typeof params.requestedSchema === "object" && params.requestedSchema !== null ? (params.requestedSchema as Record<string, unknown>) : {},
				});
				return answer.action === "accept" ? { action: "accept", content: answer.content as Record<string, string> } : { action: answer.action };
			});
		}
		client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
			opts.onToolsChanged?.();
		});
		return client;
	}

	private static async start(opts: McpConnectOptions, client: Client, transport: Transport, timeoutMs: number, cleanup: () => Promise<void>, stderr: { text: string }): Promise<void> {
		try {
			await client.connect(transport, { timeout: timeoutMs });
		} catch (err) {
			await cleanup();
			const said = stderr.text.trim().split("\n").pop();
			throw new McpConnectError(`MCP server ${opts.name} did not start: ${McpConnection.message(err)}${said ? ` (stderr: ${said})` : ""}`);
		}
	}

	/** Why the server is no longer usable, or undefined while it is connected. */
	get closedReason(): string | undefined {
		return this.gone;
	}

	/** The server's own instructions text, if it sent one (shown in review, never to the model unreviewed). */
	get instructions(): string | undefined {
		return this.client.getInstructions();
	}

	/** Whether the server serves resources and prompts (its capabilities at initialize). */
	get offers(): McpServerOffers {
		const caps = this.client.getServerCapabilities();
		return { resources: caps?.resources !== undefined, prompts: caps?.prompts !== undefined };
	}

	/** Marks the tool list stale: the next listTools reads it again. */
	markStale(): void {
		this.stale = true;
	}

	/** Every page of tools/list (cached until a list_changed notification or markStale). */
	async listTools(): Promise<McpToolInfo[]> {
		if (!this.stale) return this.tools;
		const tools: McpToolInfo[] = [];
		let cursor: string | undefined;
		for (let page = 0; ; page++) {
			if (page >= MAX_LIST_PAGES) throw new McpConnectError(`MCP server ${this.name} listed more than ${MAX_LIST_PAGES} pages of tools`);
			let result: Awaited<ReturnType<Client["listTools"]>>;
			try {
				result = await this.client.listTools(cursor === undefined ? {} : { cursor }, { timeout: this.timeoutMs });
			} catch (err) {
				throw this.failure(err, "tools/list");
			}
			for (const tool of result.tools) {
				tools.push({
					name: tool.name,
					...(tool.title !== undefined ? { title: tool.title } : {}),
					description: tool.description ?? "",
					inputSchema: tool.inputSchema as Record<string, unknown>,
					...(tool.annotations !== undefined ? { annotations: tool.annotations as Record<string, unknown> } : {}),
				});
			}
			cursor = result.nextCursor;
			if (cursor === undefined || cursor === "") break;
		}
		this.tools = tools;
		this.stale = false;
		return tools;
	}

	/** One tools/call; the signal cancels it (the SDK sends notifications/cancelled). */
	async callTool(tool: string, args: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs: number }): Promise<McpCallResult> {
		if (this.gone) throw new McpServerGoneError(this.gone);
		let result: Awaited<ReturnType<Client["callTool"]>>;
		try {
			result = await this.client.callTool({ name: tool, arguments: args }, CallToolResultSchema, { signal: options.signal, timeout: options.timeoutMs });
		} catch (err) {
			if (options.signal.aborted) throw new McpCancelledError(`call of ${tool} on MCP server ${this.name} cancelled`);
			throw this.failure(err, `tools/call ${tool}`);
		}
		const blocks = Array.isArray(result.content) ? (result.content as Record<string, unknown>[]) : [];
		const content = blocks.map(describeBlock);
		if (blocks.length === 0 && result.structuredContent !== undefined) content.push({ type: "text", text: JSON.stringify(result.structuredContent) });
		return { content, isError: result.isError === true, bytes: Buffer.byteLength(JSON.stringify(result), "utf8") };
	}

	/**
	 * One read of resources or prompts: a list is read to its last page (resources and resource
	 * templates together), a resource's contents and a prompt's messages become content blocks.
	 */
	async read(request: McpReadRequest, options: { signal: AbortSignal; timeoutMs: number }): Promise<McpReadResult> {
		if (this.gone) throw new McpServerGoneError(this.gone);
		const what = request.method === "resources/read" ? `resources/read ${request.uri}` : request.method === "prompts/get" ? `prompts/get ${request.name}` : request.method;
		const sent = { signal: options.signal, timeout: options.timeoutMs };
		try {
			switch (request.method) {
				case "resources/list": {
					const resources = await this.pages((cursor) => this.client.listResources(cursor, sent), (r) => r.resources.map(listEntry));
					// A server may serve resources without templates: one that does not know the method lists none.
					const templates = await this.pages((cursor) => this.client.listResourceTemplates(cursor, sent), (r) => r.resourceTemplates.map(listEntry)).catch((err: unknown) => {
						if (err instanceof McpError && err.code === ErrorCode.MethodNotFound) return { entries: [], bytes: 0 };
						throw err;
					});
					const entries = [...resources.entries, ...templates.entries];
					return { kind: "list", entries, bytes: resources.bytes + templates.bytes };
				}
				case "prompts/list": {
					const prompts = await this.pages((cursor) => this.client.listPrompts(cursor, sent), (r) => r.prompts.map(listEntry));
					return { kind: "list", ...prompts };
				}
				case "resources/read": {
					const result = await this.client.readResource({ uri: request.uri }, sent);
					const content = result.contents.map((c) => describeBlock({ type: "resource", resource: c }));
					return { kind: "content", content, bytes: Buffer.byteLength(JSON.stringify(result), "utf8") };
				}
				case "prompts/get": {
					const result = await this.client.getPrompt({ name: request.name, arguments: { ...request.arguments } }, sent);
					const content = result.messages.map((m): McpContent => {
						const block = describeBlock(m.content as Record<string, unknown>);
						return block.type === "text" ? { type: "text", text: `[${m.role}] ${block.text}` } : { ...block, summary: `[${m.role}] ${block.summary}` };
					});
					return { kind: "content", content, bytes: Buffer.byteLength(JSON.stringify(result), "utf8") };
				}
			}
		} catch (err) {
			if (options.signal.aborted) throw new McpCancelledError(`${what} on MCP server ${this.name} cancelled`);
			throw this.failure(err, what);
		}
	}

	/** Every page of a list request, up to MAX_LIST_PAGES. */
	private async pages<R extends { nextCursor?: string | undefined }>(request: (params: { cursor?: string }) => Promise<R>, entries: (page: R) => McpListEntry[]): Promise<{ entries: McpListEntry[]; bytes: number }> {
		const all: McpListEntry[] = [];
		let bytes = 0;
		let cursor: string | undefined;
		for (let page = 0; ; page++) {
			if (page >= MAX_LIST_PAGES) throw new McpConnectError(`MCP server ${this.name} listed more than ${MAX_LIST_PAGES} pages`);
			const result = await request(cursor === undefined ? {} : { cursor });
			bytes += Buffer.byteLength(JSON.stringify(result), "utf8");
			all.push(...entries(result));
			cursor = result.nextCursor;
			if (cursor === undefined || cursor === "") break;
		}
		return { entries: all, bytes };
	}

	/** The provider's error for a failed request: gone, timed out, or the server's own error. */
	private failure(err: unknown, what: string): Error {
		const code = err instanceof McpError ? err.code : undefined;
		if (this.overLimit !== undefined) {
			// The transport closed the connection itself, mid-answer: say what happened, not that the server went away.
			const mib = (this.overLimit / (1024 * 1024)).toFixed(0);
			this.gone ??= `server ${this.name} sent a message over the transport's ${mib} MiB limit`;
			return new McpResultTooLargeError(`MCP server ${this.name}: result too large: its answer to ${what} is over the ${mib} MiB (${this.overLimit} bytes) one message may have on its transport, so it was dropped and the connection closed`);
		}
		if (this.gone || code === ErrorCode.ConnectionClosed) {
			this.gone ??= `server ${this.name} closed the connection`;
			const said = this.stderr.text.trim().split("\n").pop();
			return new McpServerGoneError(`MCP server ${this.name} went away during ${what}${said ? ` (stderr: ${said})` : ""}`);
		}
		if (code === ErrorCode.RequestTimeout) return new McpTimeoutError(`MCP server ${this.name} did not answer ${what} in time`);
		return new McpConnectError(`MCP server ${this.name} refused ${what}: ${McpConnection.message(err)}`);
	}

	async close(): Promise<void> {
		this.gone ??= `server ${this.name} was closed`;
		await this.cleanup();
	}
}
