import type { JitPrimitives } from "./kernel-jit.js";
import type { McpPrimitives } from "./kernel-mcp.js";
import type { MemoryPrimitives } from "./kernel-memory.js";

/**
 * Kernel primitives: the only way tools reach the world. Each call is bound to one tool call,
 * confined to the workspace, and records its effect as evidence before it returns.
 */

export interface FileContent {
	/** Workspace-relative path, `/`-separated. */
	path: string;
	content: string;
	bytes: number;
	/** sha256 hex of the bytes. */
	sha256: string;
}

export interface WriteOutcome {
	path: string;
	created: boolean;
	bytesWritten: number;
	/** Unified diff of the change (before → after). */
	diff: string;
}

export interface DeleteOutcome {
	path: string;
	/** What was removed: a regular file, or a symbolic link (never its target). */
	type: "file" | "symlink";
	/** Size of the removed file (for a link, of its target text). */
	bytes: number;
	/** sha256 hex of the removed content (for a link, of its target text). */
	sha256: string;
	/** Unified diff of the removal (before → /dev/null). */
	diff: string;
}

export interface DirEntry {
	name: string;
	type: "file" | "dir" | "symlink" | "other";
	size: number;
}

export interface WalkOptions {
	/** Stop after this many paths. */
	limit: number;
	/** Directory names never descended into (e.g. `.git`, `node_modules`). */
	skipDirs?: readonly string[];
}

export interface FsPrimitives {
	/** `path` is workspace-relative or absolute inside the workspace; an escape throws WorkspaceEscapeError. */
	read(path: string, opts?: { maxBytes?: number }): Promise<FileContent>;
	write(path: string, content: string): Promise<WriteOutcome>;
	/** Removes one regular file or symbolic link (the link itself); refuses directories and the workspace root. */
	delete(path: string): Promise<DeleteOutcome>;
	list(path: string): Promise<DirEntry[]>;
	/** Workspace-relative paths of regular files under `path`, in sorted order; symlinks are not followed. */
	walk(path: string, opts: WalkOptions): Promise<{ paths: string[]; truncated: boolean }>;
	/** Resolves a path to its workspace-relative form, or throws WorkspaceEscapeError. */
	resolve(path: string): Promise<string>;
}

export interface ExecOutcome {
	exitCode: number | null;
	/** Signal that ended the process, if any. */
	signal: string | null;
	stdout: string;
	stderr: string;
	/** True when output beyond the cap was dropped. */
	truncated: boolean;
	timedOut: boolean;
	cancelled: boolean;
	durationMs: number;
}

export interface ShellPrimitives {
	exec(command: string, opts: { timeoutMs: number; maxOutputBytes: number }): Promise<ExecOutcome>;
}

export interface NetRequest {
	/** An http: or https: URL; its origin is the resource admitted (`net:<scheme>://<host>:<port>`). */
	url: string;
	/** Defaults to GET. */
	method?: string;
	headers?: Record<string, string>;
	body?: string;
	/** Defaults to DEFAULT_FETCH_TIMEOUT_MS; covers the whole exchange, body included. */
	timeoutMs?: number;
	/** Response body bytes kept; the rest is not read. Defaults to DEFAULT_FETCH_MAX_BYTES. */
	maxBytes?: number;
}

export interface NetResponse {
	url: string;
	status: number;
	statusText: string;
	/** Header names lower-cased. A redirect is not followed: its Location comes back here. */
	headers: Record<string, string>;
	/** The body as read (up to the cap), decoded as UTF-8. */
	body: string;
	/** Body bytes read. */
	bytes: number;
	/** True when the body was longer than the cap and the rest was not read. */
	truncated: boolean;
	durationMs: number;
}

export interface NetPrimitives {
	fetch(request: NetRequest): Promise<NetResponse>;
}

export interface KernelPrimitives {
	fs: FsPrimitives;
	shell: ShellPrimitives;
	net: NetPrimitives;
	/** JIT tools: compile TypeScript, run it isolated with syscalls onto fs/net/shell above. */
	jit: JitPrimitives;
	/** MCP tools: one tools/call on a configured server (src/kernel/kernel-mcp.ts). */
	mcp: McpPrimitives;
	/** Memory records on `memory:<scope>/<namespace>` (src/kernel/kernel-memory.ts); absent where the host keeps none. */
	memory?: MemoryPrimitives;
}

/** A path that resolves (through `..`, an absolute path or a symlink) outside the workspace. */
export class WorkspaceEscapeError extends Error {
	override name = "WorkspaceEscapeError";
}
