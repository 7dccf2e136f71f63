/**
 * JIT tools for the baselines, the way an agent without an isolate runs code it wrote itself: the
 * TypeScript transpiled to CommonJS and executed by a child `node`, with `require`, `process`,
 * `import()` and timers all there, and a `syscall` shim written straight onto node:fs, fetch and
 * child_process — no capability, path or size checks. The child runs inside the baselines'
 * bubblewrap (the shell context), so the task's own directory is the only place it can change.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { transformSync } from "esbuild";
import type { ShellOutcome } from "./sandbox-shell.js";

/** Registered JIT tools of one baseline run: name → TypeScript source. */
export type PlainJitTools = Map<string, string>;

export interface PlainJitContext {
	workspace: string;
	/** Where the compiled tool, its input and the runner script are written; visible inside the sandbox. */
	scratch: string;
	shell: (command: string) => Promise<ShellOutcome>;
}

/**
 * The syscall shim and driver. `args.path` is read as a plain property lookup, inherited ones
 * included: what a naive bridge in the tool's own realm does.
 */
function runnerScript(workspace: string, toolPath: string, inputPath: string): string {
	return `"use strict";
const fs = require("node:fs"), path = require("node:path"), cp = require("node:child_process");
const WS = ${JSON.stringify(workspace)};
const at = (p) => path.resolve(WS, String(p));
function walk(dir, into) {
	for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, e.name);
		if (e.isDirectory()) walk(full, into); else into.push(path.relative(WS, full));
	}
	return into;
}
async function syscall(name, args) {
	args = args == null ? {} : args;
	switch (name) {
		case "fs.read": { const p = at(args.path); const content = fs.readFileSync(p, "utf8"); return { path: p, content, bytes: Buffer.byteLength(content) }; }
		case "fs.write": { const p = at(args.path); const content = String(args.content); fs.mkdirSync(path.dirname(p), { recursive: true }); fs.writeFileSync(p, content); return { path: p, bytes: Buffer.byteLength(content) }; }
		case "fs.list": return fs.readdirSync(at(args.path)).sort();
		case "fs.walk": return walk(at(args.path), []).sort();
		case "fs.delete": { const p = at(args.path); fs.rmSync(p, { recursive: true, force: true }); return { path: p }; }
		case "net.fetch": { const r = await fetch(String(args.url), { method: args.method || "GET", headers: args.headers, body: args.body, redirect: "manual" }); return { status: r.status, body: await r.text() }; }
		case "shell.exec": { const r = cp.spawnSync("bash", ["-c", String(args.command)], { cwd: WS, encoding: "utf8" }); return { exitCode: r.status, stdout: r.stdout, stderr: r.stderr }; }
		default: throw new Error("unknown syscall " + name);
	}
}
const input = JSON.parse(fs.readFileSync(${JSON.stringify(inputPath)}, "utf8"));
Promise.resolve()
	.then(() => require(${JSON.stringify(toolPath)}).default(input, syscall))
	.then(
		(value) => process.stdout.write(typeof value === "string" ? value : JSON.stringify(value === undefined ? null : value, null, 2)),
		(err) => { process.stderr.write(String((err && err.stack) || err)); process.exitCode = 1; },
	);
`;
}

function quote(text: string): string {
	return `'${text.replaceAll("'", "'\\''")}'`;
}

let runs = 0;

/** Runs a registered tool once in a fresh child node; any failure is an error result. */
export async function runPlainJit(name: string, source: string, input: unknown, ctx: PlainJitContext): Promise<{ output: string; isError: boolean }> {
	let code: string;
	try {
		code = transformSync(source, { loader: "ts", format: "cjs", target: "node20", sourcefile: `${name}.ts` }).code;
	} catch (error) {
		return { output: `${name}: ${error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error)}`, isError: true };
	}
	const dir = join(ctx.scratch, `${name}-${++runs}`);
	await mkdir(dir, { recursive: true });
	const toolPath = join(dir, "tool.cjs");
	const inputPath = join(dir, "input.json");
	const runnerPath = join(dir, "run.cjs");
	await writeFile(toolPath, code);
	await writeFile(inputPath, JSON.stringify(input ?? {}));
	await writeFile(runnerPath, runnerScript(ctx.workspace, toolPath, inputPath));
	const outcome = await ctx.shell(`node ${quote(runnerPath)}`);
	if (outcome.timedOut) return { output: `${name}: timed out\n${outcome.stdout}${outcome.stderr}`, isError: true };
	if (outcome.exitCode !== 0) return { output: `${name}: exit code ${outcome.exitCode}\n${outcome.stderr}`, isError: true };
	return { output: outcome.stdout, isError: false };
}

/** What register_tool answers in the baselines: the source kept, nothing checked, nothing asked. */
export function registerPlainJit(args: Record<string, unknown>, tools: PlainJitTools): { output: string; isError: boolean } {
	const name = String(args.name);
	if (typeof args.source !== "string") return { output: "register_tool needs a source", isError: true };
	const existed = tools.has(name);
	tools.set(name, args.source);
	return { output: `${existed ? "registered a new version of" : "registered"} tool ${name}; it is available from your next step`, isError: false };
}
