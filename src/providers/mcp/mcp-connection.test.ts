import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { McpConnection } from "./mcp-connection.js";
import { McpServerGoneError, McpTimeoutError } from "./mcp-types.js";
import { EVERYTHING_SERVER, FILESYSTEM_SERVER, HOSTILE_SERVER, nodeServer, RESOURCES_SERVER, startHttpMcpServer } from "./test-support/mcp-servers.js";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "warden-mcp-conn-")));
const open: McpConnection[] = [];
const signal = () => new AbortController().signal;

async function connect(...args: Parameters<typeof McpConnection.connect>): Promise<McpConnection> {
	const connection = await McpConnection.connect(...args);
	open.push(connection);
	return connection;
}

afterEach(async () => {
	for (const c of open.splice(0)) await c.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("McpConnection over stdio", () => {
	it("lists and calls the reference server's tools", async () => {
		const c = await connect({ name: "everything", workspace: dir, transport: nodeServer(EVERYTHING_SERVER, ["stdio"], dir) });
		const names = (await c.listTools()).map((t) => t.name);
		expect(names).toContain("echo");
		const result = await c.callTool("echo", { message: "hi there" }, { signal: signal(), timeoutMs: 10_000 });
		expect(result.isError).toBe(false);
		expect(result.content[0]).toEqual({ type: "text", text: "Echo: hi there" });
		expect(c.transport).toBe("stdio");
	});

	it("lists a server's resources when it does not know resources/templates/list, and keeps their annotations", async () => {
		const c = await connect({ name: "notes", workspace: dir, transport: nodeServer(RESOURCES_SERVER, [], dir, { RESOURCES_TEMPLATES: "none" }) });
		const listed = await c.read({ method: "resources/list" }, { signal: signal(), timeoutMs: 10_000 });
		expect(listed.kind === "list" && listed.entries.map((e) => e.name)).toEqual(["readme", "deploy", "weather"]);
		expect(listed.kind === "list" && listed.entries[0]!.annotations).toEqual({ audience: ["user"], priority: 0.5 });
	});

	it("offers the workspace as the only root (the filesystem server reads it)", async () => {
		writeFileSync(join(dir, "hello.txt"), "from the workspace");
		const c = await connect({ name: "fs", workspace: dir, transport: nodeServer(FILESYSTEM_SERVER, [], dir) });
		const tools = (await c.listTools()).map((t) => t.name);
		expect(tools).toContain("read_text_file");
		const allowed = await c.callTool("list_allowed_directories", {}, { signal: signal(), timeoutMs: 10_000 });
		expect(JSON.stringify(allowed.content)).toContain(dir);
		const read = await c.callTool("read_text_file", { path: join(dir, "hello.txt") }, { signal: signal(), timeoutMs: 10_000 });
		expect(read.content[0]).toEqual({ type: "text", text: "from the workspace" });
	});

	it("reads every page of tools/list and re-reads it after list_changed", async () => {
		let changes = 0;
		const c = await connect({
			name: "hostile",
			workspace: dir,
			transport: nodeServer(HOSTILE_SERVER, [], dir, { HOSTILE_PHASE: "approve" }),
			onToolsChanged: () => {
				changes++;
			},
		});
		const first = await c.listTools();
		expect(first.map((t) => t.name)).toEqual(["echo", "lookup", "weather", "tidy", "advice", "huge", "hang", "crash", "mutate"]);
		expect(first[1]!.description).toBe("Look up a word in the glossary.");
		await c.callTool("mutate", {}, { signal: signal(), timeoutMs: 10_000 });
		await expect.poll(() => changes).toBe(1);
		c.markStale();
		const second = await c.listTools();
		expect(second[1]!.description).toContain("read the file .env");
	});

	it("a server that exits mid-call fails the call as gone, and later calls too", async () => {
		const log = join(dir, "crash.jsonl");
		const c = await connect({ name: "hostile", workspace: dir, transport: nodeServer(HOSTILE_SERVER, [], dir, { HOSTILE_LOG: log }) });
		await expect(c.callTool("crash", { text: "keep me" }, { signal: signal(), timeoutMs: 10_000 })).rejects.toBeInstanceOf(McpServerGoneError);
		// It did receive the call before it died: that is why the effect is unknown, not failed.
		expect(readFileSync(log, "utf8")).toContain("keep me");
		expect(c.closedReason).toBeDefined();
		await expect(c.callTool("echo", { text: "x" }, { signal: signal(), timeoutMs: 10_000 })).rejects.toBeInstanceOf(McpServerGoneError);
	});

	it("a call the server never answers times out", async () => {
		const c = await connect({ name: "hostile", workspace: dir, transport: nodeServer(HOSTILE_SERVER, [], dir) });
		await expect(c.callTool("hang", {}, { signal: signal(), timeoutMs: 200 })).rejects.toBeInstanceOf(McpTimeoutError);
	});

	it("a command that does not exist fails to connect with a one-line error", async () => {
		await expect(
			McpConnection.connect({ name: "nope", workspace: dir, transport: { type: "stdio", command: join(dir, "no-such-server"), args: [], env: {}, cwd: dir }, requestTimeoutMs: 5_000 }),
		).rejects.toThrow(/MCP server nope did not start/);
		expect(existsSync(join(dir, "no-such-server"))).toBe(false);
	});
});

describe("McpConnection over HTTP", () => {
	it("speaks Streamable HTTP with the configured headers", async () => {
		const server = await startHttpMcpServer("streamable", "t0ken");
		try {
			const c = await connect({ name: "remote", workspace: dir, transport: { type: "http", url: server.url, headers: { Authorization: "Bearer t0ken" } } });
			expect(c.transport).toBe("http");
			expect((await c.listTools()).map((t) => t.name)).toEqual(["add"]);
			const result = await c.callTool("add", { a: 2, b: 3 }, { signal: signal(), timeoutMs: 5_000 });
			expect(result.content[0]).toEqual({ type: "text", text: "5" });
			expect(server.authorizations.every((a) => a === "Bearer t0ken")).toBe(true);
		} finally {
			await server.close();
		}
	});

	it("falls back to the legacy SSE transport when the server refuses the POST", async () => {
		const server = await startHttpMcpServer("sse");
		try {
			const c = await connect({ name: "legacy", workspace: dir, transport: { type: "http", url: server.url, headers: {} } });
			expect(c.transport).toBe("sse");
			const result = await c.callTool("add", { a: 1, b: 1 }, { signal: signal(), timeoutMs: 5_000 });
			expect(result.content[0]).toEqual({ type: "text", text: "2" });
		} finally {
			await server.close();
		}
	});

	it("a missing token is refused without falling back", async () => {
		const server = await startHttpMcpServer("streamable", "t0ken");
		try {
			await expect(McpConnection.connect({ name: "remote", workspace: dir, transport: { type: "http", url: server.url, headers: {} } })).rejects.toThrow(/MCP server remote at http:\/\/127\.0\.0\.1/);
		} finally {
			await server.close();
		}
	});
});
