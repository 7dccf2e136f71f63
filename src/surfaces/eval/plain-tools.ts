/**
 * The baselines' tools: the same names and arguments as Warden's, written the way a naive agent
 * writes them — node:fs and a shell, no rules, no confinement to the workspace, missing arguments
 * used as they come. The one line they do not cross is the evaluation's own sandbox: writes land
 * only inside the task's directory (as under bubblewrap, everything else is read-only) and shell
 * commands run only inside bubblewrap.
 */
import { lstat, mkdir, readdir, readFile, readlink, realpath, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve } from "node:path";
import picomatch from "picomatch";
import { type PlainJitTools, registerPlainJit, runPlainJit } from "./plain-jit.js";
import type { ShellOutcome } from "./sandbox-shell.js";
import { type PlainNote, plainMemorySearch, plainMemoryWrite } from "./plain-memory.js";

export const PLAIN_TOOL_NAMES = ["read_file", "write_file", "edit_file", "list_dir", "glob", "grep", "shell", "web_fetch", "agent", "register_tool", "memory_write", "memory_search"] as const;

/** A plain fetch gives up after this long, as the baselines' shell does. */
const PLAIN_FETCH_TIMEOUT_MS = 10_000;

/** How deep nested `agent` calls go, as in the runtime: a session's children are depth 1, theirs depth 2. */
export const PLAIN_AGENT_DEPTH = 2;

export interface PlainToolContext {
	workspace: string;
	/** The task's directory: the only place a write may land. */
	writableRoot: string;
	/** Runs a command in the sandbox; absent when no sandbox works here. */
	shell: ((command: string) => Promise<ShellOutcome>) | undefined;
	/** Tools registered with register_tool in this run (name → source); absent: register_tool is refused. */
	jitTools?: PlainJitTools;
	/** Where a JIT tool's compiled code is written for the sandboxed node to run; inside writableRoot, outside the observed dirs. */
	scratch?: string;
	/** The notes memory_write keeps for the rest of the run (both sessions of a task); absent: no memory. */
	memory?: PlainNote[];
}

export interface PlainResult {
	output: string;
	isError: boolean;
	/** Set when the harness refused to run the call at all (no sandbox for a shell command). */
	notRun?: string;
}

/** A write the sandbox refused, worded as the kernel would (EROFS). */
class ReadOnlyError extends Error {
	override name = "ReadOnlyError";
}

/**
 * Where a write to `path` would really land: links in the existing part followed — a dangling
 * one included, since writing through it creates its target — and the missing rest appended.
 */
async function landingPath(path: string, depth = 0): Promise<string> {
	if (depth > 40) throw new ReadOnlyError(`ELOOP: too many levels of symbolic links, open '${path}'`);
	const rest: string[] = [];
	let at = path;
	for (;;) {
		const info = await lstat(at).catch(() => undefined);
		if (info !== undefined) {
			const real = await realpath(at).catch(() => undefined);
			if (real !== undefined) return join(real, ...rest.reverse());
			if (!info.isSymbolicLink()) throw new ReadOnlyError(`EACCES: ${at} cannot be resolved`);
			const target = resolve(dirname(at), await readlink(at));
			return landingPath(join(target, ...rest.reverse()), depth + 1);
		}
		const parent = dirname(at);
		if (parent === at) return path;
		rest.push(basename(at));
		at = parent;
	}
}

async function assertWritable(path: string, root: string): Promise<void> {
	const landing = await landingPath(path);
	if (landing !== root && !landing.startsWith(`${root}/`)) throw new ReadOnlyError(`EROFS: read-only file system, open '${path}'`);
}

async function walk(dir: string, into: string[] = []): Promise<string[]> {
	for (const entry of await readdir(dir, { withFileTypes: true })) {
		const full = join(dir, entry.name);
		if (entry.isDirectory()) await walk(full, into);
		else into.push(full);
	}
	return into;
}

function shellText(outcome: ShellOutcome): string {
	const head = outcome.timedOut ? "exit code: none (timed out)" : `exit code: ${outcome.exitCode}`;
	return `${head}\nstdout:\n${outcome.stdout}\nstderr:\n${outcome.stderr}`;
}

/**
 * A naive web fetch: the request sent as the model wrote it — any URL, method, body and headers —
 * with no admission and no look at what the body carries. Redirects come back, not followed, as
 * Warden's own tool does, so a step reaches only the URL it names.
 */
async function plainFetch(args: Record<string, unknown>): Promise<PlainResult> {
	const headers = typeof args.headers === "object" && args.headers !== null ? (args.headers as Record<string, string>) : undefined;
	const init: RequestInit = { method: String(args.method ?? "GET"), redirect: "manual", signal: AbortSignal.timeout(PLAIN_FETCH_TIMEOUT_MS) };
	if (headers !== undefined) init.headers = headers;
	if (args.body !== undefined) init.body = String(args.body);
	const response = await fetch(String(args.url), init);
	const body = await response.text();
	return { output: `status: ${response.status}\n${body}`, isError: !response.ok };
}

/**
 * A naive sub-agent: the plan in `steps` run call by call with these same tools, no mode, rules or
 * authority carried over — what a framework without delegation checks does.
 */
async function runPlainAgent(args: unknown, ctx: PlainToolContext, depth: number): Promise<PlainResult> {
	if (depth > PLAIN_AGENT_DEPTH) return { output: `sub-agents nest at most ${PLAIN_AGENT_DEPTH} deep`, isError: true };
	const steps = (args as Record<string, unknown>).steps;
	if (!Array.isArray(steps)) return { output: "agent needs steps to run", isError: true };
	const lines: string[] = [];
	let notRun: string | undefined;
	for (const step of steps as { text?: unknown; tool_calls?: unknown }[]) {
		if (typeof step?.text === "string") lines.push(step.text);
		const calls = Array.isArray(step?.tool_calls) ? (step.tool_calls as { name?: unknown; arguments?: unknown }[]) : [];
		for (const call of calls) {
			const raw = call.arguments ?? {};
			const decoded = typeof raw === "string" ? (JSON.parse(raw) as unknown) : raw;
			const result = await runPlainTool(String(call.name), decoded, ctx, depth);
			notRun ??= result.notRun;
			lines.push(`${String(call.name)}: ${result.output}`);
		}
	}
	return { output: `sub-agent completed:\n${lines.join("\n")}`, isError: false, ...(notRun === undefined ? {} : { notRun }) };
}

/** Runs one call; any exception becomes an error result, as a naive agent loop would report it. `depth`: the sub-agent it runs in, 0 for the top. */
export async function runPlainTool(name: string, args: unknown, ctx: PlainToolContext, depth = 0): Promise<PlainResult> {
	const arg = (key: string): unknown => (args as Record<string, unknown>)[key];
	const at = (key: string) => resolve(ctx.workspace, String(arg(key)));
	try {
		switch (name) {
			case "read_file":
				return { output: await readFile(at("path"), "utf8"), isError: false };
			case "write_file": {
				const target = at("path");
				await assertWritable(target, ctx.writableRoot);
				await mkdir(dirname(target), { recursive: true });
				const content = String(arg("content"));
				await writeFile(target, content);
				return { output: `wrote ${Buffer.byteLength(content)} bytes to ${target}`, isError: false };
			}
			case "edit_file": {
				const target = at("path");
				const text = await readFile(target, "utf8");
				const old = String(arg("old"));
				const at0 = text.indexOf(old);
				if (at0 === -1) return { output: `old text not found in ${target}`, isError: true };
				await assertWritable(target, ctx.writableRoot);
				await writeFile(target, text.slice(0, at0) + String(arg("new")) + text.slice(at0 + old.length));
				return { output: `edited ${target}`, isError: false };
			}
			case "list_dir":
				return { output: (await readdir(at("path"))).sort().join("\n"), isError: false };
			case "glob": {
				const isMatch = picomatch(String(arg("pattern")), { dot: true });
				const files = (await walk(ctx.workspace)).map((f) => relative(ctx.workspace, f)).filter((f) => isMatch(f));
				return { output: files.sort().join("\n"), isError: false };
			}
			case "grep": {
				const regex = new RegExp(String(arg("pattern")));
				const root = arg("path") === undefined ? ctx.workspace : at("path");
				const files = (await stat(root)).isDirectory() ? await walk(root) : [root];
				const lines: string[] = [];
				for (const file of files.sort()) {
					const text = await readFile(file, "utf8").catch(() => "");
					text.split("\n").forEach((line, i) => {
						if (regex.test(line)) lines.push(`${relative(ctx.workspace, file)}:${i + 1}: ${line}`);
					});
				}
				return { output: lines.join("\n"), isError: false };
			}
			case "shell": {
				if (ctx.shell === undefined) return { output: "shell is not available", isError: true, notRun: "no sandbox to run the command in" };
				const outcome = await ctx.shell(String(arg("command")));
				return { output: shellText(outcome), isError: outcome.exitCode !== 0 };
			}
			case "web_fetch":
				return await plainFetch(args as Record<string, unknown>);
			case "agent":
				return await runPlainAgent(args, ctx, depth + 1);
			case "memory_write":
				if (ctx.memory === undefined) return { output: "memory is not available", isError: true };
				return plainMemoryWrite(args as Record<string, unknown>, ctx.memory);
			case "memory_search":
				if (ctx.memory === undefined) return { output: "memory is not available", isError: true };
				return plainMemorySearch(args as Record<string, unknown>, ctx.memory);
			case "register_tool":
				if (ctx.jitTools === undefined) return { output: "JIT tools are not available", isError: true };
				return registerPlainJit(args as Record<string, unknown>, ctx.jitTools);
			default: {
				const source = ctx.jitTools?.get(name);
				if (source === undefined) return { output: `unknown tool ${name}`, isError: true };
				if (ctx.shell === undefined) return { output: `${name} is not available`, isError: true, notRun: "no sandbox to run the JIT tool in" };
				return await runPlainJit(name, source, args, { workspace: ctx.workspace, scratch: ctx.scratch ?? join(ctx.writableRoot, "jit"), shell: ctx.shell });
			}
		}
	} catch (error) {
		return { output: `${name} failed: ${error instanceof Error ? error.message : String(error)}`, isError: true };
	}
}
