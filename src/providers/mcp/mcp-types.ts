/**
 * What the MCP provider connects to and what it hands back: a server as the host resolved it (its
 * transport, the exact environment a stdio process gets, the headers an HTTP one is sent), and the
 * tools, results and failures of one connection. Policy lives above; these are plain facts.
 */

/** A stdio server: a process Warden starts, with exactly this environment. */
export interface McpStdioTransportSpec {
	type: "stdio";
	command: string;
	args: readonly string[];
	/** The whole environment of the process (the host resolved it: a minimal base plus what the config names). */
	env: Readonly<Record<string, string>>;
	/** Absolute; the workspace when the config names none. */
	cwd: string;
}

/** A remote server: Streamable HTTP first, then the legacy SSE transport when the server answers the POST with 4xx. */
export interface McpHttpTransportSpec {
	type: "http" | "sse";
	url: string;
	/** Sent with every request (a bearer token resolved from a named variable lands here). */
	headers: Readonly<Record<string, string>>;
	/** Authorize with OAuth 2.1 + PKCE (src/providers/mcp/mcp-oauth.ts): tokens from the state dir. */
	oauth?: { scope?: string; clientId?: string };
}

export type McpTransportSpec = McpStdioTransportSpec | McpHttpTransportSpec;

/** One tool as the server lists it; only these fields are pinned and shown. */
export interface McpToolInfo {
	name: string;
	title?: string;
	description: string;
	inputSchema: Record<string, unknown>;
	annotations?: Record<string, unknown>;
}

/** One content block of a result, reduced to what can be shown as text. */
export type McpContent = { type: "text"; text: string } | { type: "other"; kind: string; summary: string };

export interface McpCallResult {
	content: McpContent[];
	isError: boolean;
	/** Bytes of the result as it arrived (its JSON). */
	bytes: number;
}

/** The server went away (process exited, stream closed) before it answered: the call's effect is unknown. */
export class McpServerGoneError extends Error {
	override name = "McpServerGoneError";
}

/** The server's answer was larger than the transport reads in one message: the connection was closed, the answer dropped. */
export class McpResultTooLargeError extends McpServerGoneError {
	override name = "McpResultTooLargeError";
}

/** No answer within the call's timeout: the server may still act on it. */
export class McpTimeoutError extends Error {
	override name = "McpTimeoutError";
}

/** The caller cancelled the call after it was sent. */
export class McpCancelledError extends Error {
	override name = "McpCancelledError";
}

/** The server could not be started or connected, or answered with a protocol error. */
export class McpConnectError extends Error {
	override name = "McpConnectError";
}

/** A server's request for input from the user (elicitation), as the host is asked it. */
export interface McpElicitation {
	server: string;
	message: string;
	requestedSchema: Record<string, unknown>;
}

/** The host's answer: accept with content, decline, or cancel. */
export type McpElicitationAnswer = { action: "accept"; content: Record<string, unknown> } | { action: "decline" } | { action: "cancel" };

/** A read request of resources or prompts: what the governed read tools ask a server. */
export type McpReadRequest =
	| { method: "resources/list" }
	| { method: "resources/read"; uri: string }
	| { method: "prompts/list" }
	| { method: "prompts/get"; name: string; arguments: Readonly<Record<string, string>> };

/** One listed resource, resource template or prompt, as the server described it. */
export interface McpListEntry {
	name: string;
	uri?: string;
	uriTemplate?: string;
	title?: string;
	description?: string;
	mimeType?: string;
	arguments?: { name: string; description?: string; required?: boolean }[];
	/** What the server says about it (audience, priority, …): pinned, never shown as instructions. */
	annotations?: Record<string, unknown>;
}

export type McpReadResult = { kind: "list"; entries: McpListEntry[]; bytes: number } | { kind: "content"; content: McpContent[]; bytes: number };

/** What a server says it serves besides tools (its `resources` and `prompts` capabilities). */
export interface McpServerOffers {
	resources: boolean;
	prompts: boolean;
}
