/**
 * MCP servers in safety tasks (`mcp_servers:`, docs/eval-tasks.md): each names a server script in
 * eval/mcp/ (`hostile` is eval/mcp/hostile-server.mjs), the environment it runs with, the tools a
 * human approved before the run and the environment the server had then (a rug pull changes it),
 * and whether it runs in the shell sandbox. Every call a server of eval/mcp/ receives is appended to
 * `{outside}/mcp-<server>.jsonl` by the server itself: the world record `mcp_call` effects read.
 * `filesystem` is @modelcontextprotocol/server-filesystem serving the workspace (it logs nothing).
 */
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import type { McpServerConfig } from "../../runtime/mcp/mcp-server-config.js";
import type { TaskDirs } from "./fixture.js";
import { expandText } from "./task-variables.js";

export interface EvalMcpServer {
	name: string;
	/** A script in eval/mcp/: `<script>-server.mjs`. */
	script: string;
	env: Record<string, string>;
	/** Tools, or entries' pin keys (`prompt:<name>`, `resource:<uri>`, `resource-template:<template>`), approved (pinned) before the run, as the server listed them with `approveEnv`. */
	approve: string[];
	approveEnv: Record<string, string>;
	sandbox: boolean;
	timeoutMs?: number;
}

const SERVER_KEYS = ["script", "env", "approve", "approve_env", "sandbox", "timeout_ms"];
const SCRIPTS = new Set(["hostile", "resources", "filesystem"]);
const NAME = /^[A-Za-z0-9_-]{1,32}$/;

type Fail = (field: string, problem: string) => never;

function strings(value: unknown, field: string, fail: Fail): Record<string, string> {
	if (value === undefined) return {};
	if (typeof value !== "object" || value === null || Array.isArray(value)) fail(field, "must be a mapping of name to text");
	const out: Record<string, string> = {};
	for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
		if (typeof v !== "string") fail(`${field}.${k}`, "must be text");
		out[k] = v as string;
	}
	return out;
}

export function parseMcpServers(value: unknown, fail: Fail): EvalMcpServer[] | undefined {
	if (value === undefined) return undefined;
	if (typeof value !== "object" || value === null || Array.isArray(value)) fail("mcp_servers", "must be a mapping of server name to { script, env, approve, approve_env, sandbox }");
	return Object.entries(value as Record<string, unknown>).map(([name, raw]) => {
		const field = `mcp_servers.${name}`;
		if (!NAME.test(name)) fail(field, "a server name holds 1-32 letters, digits, _ or -");
		if (typeof raw !== "object" || raw === null || Array.isArray(raw)) fail(field, "must be a mapping");
		const spec = raw as Record<string, unknown>;
		const extra = Object.keys(spec).find((k) => !SERVER_KEYS.includes(k));
		if (extra !== undefined) fail(`${field}.${extra}`, `unknown key (known: ${SERVER_KEYS.join(", ")})`);
		const script = spec.script ?? "hostile";
		if (typeof script !== "string" || !SCRIPTS.has(script)) fail(`${field}.script`, `must be one of ${[...SCRIPTS].join(", ")}`);
		const approve = spec.approve ?? [];
		if (!Array.isArray(approve) || approve.some((t) => typeof t !== "string")) fail(`${field}.approve`, "must be a list of tool names or pin keys (prompt:<name>, resource:<uri>, resource-template:<template>)");
		if (spec.sandbox !== undefined && typeof spec.sandbox !== "boolean") fail(`${field}.sandbox`, "must be true or false");
		const timeout = spec.timeout_ms;
		if (timeout !== undefined && !(Number.isInteger(timeout) && (timeout as number) > 0)) fail(`${field}.timeout_ms`, "must be a positive integer");
		return {
			name,
			script: script as string,
			env: strings(spec.env, `${field}.env`, fail),
			approve: approve as string[],
			approveEnv: strings(spec.approve_env, `${field}.approve_env`, fail),
			sandbox: spec.sandbox === true,
			...(timeout !== undefined ? { timeoutMs: timeout as number } : {}),
		};
	});
}

/** Where the server logs every call it receives. */
export function mcpLogPath(dirs: TaskDirs, server: string): string {
	return join(dirs.outside, `mcp-${server}.jsonl`);
}

/** The server's program and arguments: a script of eval/mcp/, or `filesystem`, the npm reference server serving the workspace. */
function serverArgs(script: string, dirs: TaskDirs): string[] {
	if (script === "filesystem") return [fileURLToPath(new URL("../../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", import.meta.url)), dirs.workspace];
	return [fileURLToPath(new URL(`../../../eval/mcp/${script}-server.mjs`, import.meta.url))];
}

/** The server as a session (or a baseline's client) starts it; `approval` gives the environment it had when its tools were approved. */
export function mcpServerConfig(server: EvalMcpServer, dirs: TaskDirs, approval = false): McpServerConfig {
	const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dirs.home, HOSTILE_LOG: mcpLogPath(dirs, server.name) };
	for (const [k, v] of Object.entries(approval ? { ...server.env, ...server.approveEnv } : server.env)) env[k] = expandText(v, dirs.places);
	return {
		name: server.name,
		transport: { type: "stdio", command: process.execPath, args: serverArgs(server.script, dirs), env, cwd: dirs.workspace },
		sandbox: server.sandbox,
		source: "eval task",
		...(server.timeoutMs !== undefined ? { timeoutMs: server.timeoutMs } : {}),
	};
}

/** The calls a server logged, from its log file's text (a line that is not JSON is skipped). */
export function loggedCalls(text: string | undefined): { tool: string; arguments: unknown }[] {
	if (text === undefined) return [];
	return text
		.split("\n")
		.filter((l) => l.trim() !== "")
		.flatMap((l) => {
			try {
				return [JSON.parse(l) as { tool: string; arguments: unknown }];
			} catch {
				return [];
			}
		});
}
