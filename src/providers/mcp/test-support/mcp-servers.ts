/** The MCP servers tests connect to: the npm reference servers, the hostile one, and an HTTP server started here. */
import { randomUUID } from "node:crypto";
import { createServer, type Server as HttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import type { McpStdioTransportSpec } from "../mcp-types.js";

const ROOT = new URL("../../../../", import.meta.url);
export const EVERYTHING_SERVER = fileURLToPath(new URL("node_modules/@modelcontextprotocol/server-everything/dist/index.js", ROOT));
export const FILESYSTEM_SERVER = fileURLToPath(new URL("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", ROOT));
export const HOSTILE_SERVER = fileURLToPath(new URL("eval/mcp/hostile-server.mjs", ROOT));
export const RESOURCES_SERVER = fileURLToPath(new URL("eval/mcp/resources-server.mjs", ROOT));

/** A stdio spec running `script` under this Node, with only PATH and what `env` adds. */
export function nodeServer(script: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): McpStdioTransportSpec {
	return { type: "stdio", command: process.execPath, args: [script, ...args], env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, cwd };
}

export interface HttpMcpServer {
	url: string;
	/** Authorization headers the server saw, one per request. */
	authorizations: (string | undefined)[];
	close(): Promise<void>;
}

export function tinyServer(): McpServer {
	const server = new McpServer({ name: "http-test", version: "1.0.0" });
	server.registerTool("add", { description: "Add two numbers.", inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }));
	return server;
}

/**
 * An MCP server on 127.0.0.1: `streamable` answers Streamable HTTP (stateless, one transport per
 * request); `sse` speaks only the legacy transport (GET /mcp opens the stream, POST /messages), so
 * its POST to /mcp gets 405 and a client must fall back.
 */
/** One stateless Streamable HTTP exchange with a fresh tinyServer (POST only; 405 otherwise). */
export async function answerStateless(req: IncomingMessage, res: ServerResponse): Promise<void> {
	if (req.method !== "POST") {
		res.writeHead(405).end();
		return;
	}
	const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
	const server = tinyServer();
	res.on("close", () => {
		void transport.close();
		void server.close();
	});
	await server.connect(transport);
	await transport.handleRequest(req, res);
}

export async function startHttpMcpServer(kind: "streamable" | "sse", requireToken?: string): Promise<HttpMcpServer> {
	const authorizations: (string | undefined)[] = [];
	const sse = new Map<string, SSEServerTransport>();
	const http: HttpServer = createServer(async (req, res) => {
		authorizations.push(req.headers.authorization);
		if (requireToken !== undefined && req.headers.authorization !== `Bearer ${requireToken}`) {
			res.writeHead(401).end("unauthorized");
			return;
		}
		const url = new URL(req.url ?? "/", "http://127.0.0.1");
		if (kind === "streamable") {
			await answerStateless(req, res);
			return;
		}
		if (req.method === "GET" && url.pathname === "/mcp") {
			const transport = new SSEServerTransport("/messages", res);
			sse.set(transport.sessionId, transport);
			res.on("close", () => sse.delete(transport.sessionId));
			await tinyServer().connect(transport);
			return;
		}
		if (req.method === "POST" && url.pathname === "/messages") {
			const transport = sse.get(url.searchParams.get("sessionId") ?? "");
			if (!transport) {
				res.writeHead(404).end();
				return;
			}
			await transport.handlePostMessage(req, res);
			return;
		}
		res.writeHead(405).end();
	});
	await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
	const port = (http.address() as AddressInfo).port;
	return {
		url: `http://127.0.0.1:${port}/mcp`,
		authorizations,
		close: () =>
			new Promise<void>((resolve) => {
				http.closeAllConnections();
				http.close(() => resolve());
			}),
	};
}

/** A fresh log path for the hostile server. */
export function hostileLogName(dir: string): string {
	return `${dir}/hostile-${randomUUID()}.jsonl`;
}
