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

export interface KernelPrimitives {
	fs: FsPrimitives;
	shell: ShellPrimitives;
}

/** A path that resolves (through `..`, an absolute path or a symlink) outside the workspace. */
export class WorkspaceEscapeError extends Error {
	override name = "WorkspaceEscapeError";
}
