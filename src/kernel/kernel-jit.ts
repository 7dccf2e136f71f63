/**
 * JIT tools (the Agent libOS paper's section 5.2): TypeScript whose only entry point is `syscall`,
 * dispatched here to the SAME fs/net/shell primitives this call's built-in tools get — so the
 * call's capabilities, flow checks, budgets, protected operations and effect evidence all apply.
 * Each syscall leaves a `tool.syscall` event and a `jit.syscall` audit record; a limit hit leaves
 * `jit.limit`.
 */
import { type IsolationLimit, MAX_STACK_BYTES, runIsolated } from "../providers/quickjs/run-isolated.js";
import { TranspileError, transpileTool } from "../providers/transpile.js";
import type { FsPrimitives, NetPrimitives, NetRequest, ShellPrimitives } from "./primitives.js";

export interface JitLimits {
	memoryBytes: number;
	/** At most 256 KiB. */
	stackBytes: number;
	deadlineMs: number;
	maxResultBytes: number;
	maxSyscalls: number;
}

export const DEFAULT_JIT_LIMITS: JitLimits = {
	memoryBytes: 32 * 1024 * 1024,
	stackBytes: MAX_STACK_BYTES,
	deadlineMs: 10_000,
	maxResultBytes: 256 * 1024,
	maxSyscalls: 200,
};

export const SYSCALL_NAMES = ["fs.read", "fs.write", "fs.list", "fs.walk", "fs.delete", "net.fetch", "shell.exec"] as const;
export type SyscallName = (typeof SYSCALL_NAMES)[number];

export interface SyscallRecord {
	call_id: string;
	tool: string;
	syscall: string;
	outcome: "ok" | "error";
	error?: string;
}

export interface LimitRecord {
	call_id: string;
	tool: string;
	limit: IsolationLimit;
	error: string;
}

/** Where a JIT call's evidence goes: the runtime writes the event and the audit record. */
export interface JitEvidence {
	syscall(record: SyscallRecord): Promise<void>;
	limit(record: LimitRecord): Promise<void>;
}

export type JitOutcome = { ok: true; value: unknown } | { ok: false; error: string; limit?: IsolationLimit };

export interface JitPrimitives {
	/** TypeScript → the script the isolate runs; throws JitCompileError with line:col. */
	compile(source: string): { code: string; sha256: string };
	/** Runs compiled code in a fresh isolate; `tool` names it in the evidence. */
	run(code: string, input: unknown, opts: { tool: string; limits?: Partial<JitLimits> }): Promise<JitOutcome>;
}

export class JitCompileError extends Error {
	override name = "JitCompileError";
}

export interface JitPrimitivesOptions {
	callId: string;
	fs: FsPrimitives;
	net: NetPrimitives;
	shell: ShellPrimitives;
	evidence?: JitEvidence;
	/** Bounds for a command a JIT tool runs: its timeout and output are capped by these. */
	shellMaxTimeoutMs?: number;
	shellMaxOutputBytes?: number;
}

export function createJitPrimitives(opts: JitPrimitivesOptions): JitPrimitives {
	return {
		compile(source) {
			try {
				return transpileTool(source);
			} catch (err) {
				if (err instanceof TranspileError) throw new JitCompileError(err.message);
				throw err;
			}
		},
		async run(code, input, { tool, limits }) {
			const bounds = { ...DEFAULT_JIT_LIMITS, ...limits };
			const outcome = await runIsolated({
				code,
				input,
				...bounds,
				syscall: async (name, args) => {
					try {
						const value = await dispatch(opts, name, args);
						await opts.evidence?.syscall({ call_id: opts.callId, tool, syscall: name, outcome: "ok" });
						return value;
					} catch (err) {
						const error = firstLine(err instanceof Error ? err.message : String(err));
						await opts.evidence?.syscall({ call_id: opts.callId, tool, syscall: name, outcome: "error", error });
						throw new Error(error);
					}
				},
			});
			if (!outcome.ok && outcome.limit) await opts.evidence?.limit({ call_id: opts.callId, tool, limit: outcome.limit, error: outcome.error });
			return outcome;
		},
	};
}

/** One syscall onto this call's own primitives; anything not on the list is refused inside the tool. */
async function dispatch(opts: JitPrimitivesOptions, name: string, args: unknown): Promise<unknown> {
	if (!(SYSCALL_NAMES as readonly string[]).includes(name)) throw new Error(`unknown syscall ${JSON.stringify(name.slice(0, 40))}; available: ${SYSCALL_NAMES.join(", ")}`);
	const a = record(args);
	switch (name as SyscallName) {
		case "fs.read": {
			const file = await opts.fs.read(str(a, "path"), optionalNumber(a, "maxBytes") === undefined ? {} : { maxBytes: optionalNumber(a, "maxBytes") as number });
			return { path: file.path, content: file.content, bytes: file.bytes, sha256: file.sha256 };
		}
		case "fs.write":
			return opts.fs.write(str(a, "path"), str(a, "content"));
		case "fs.list":
			return opts.fs.list(str(a, "path"));
		case "fs.walk": {
			const skipDirs = a.skipDirs;
			if (skipDirs !== undefined && !(Array.isArray(skipDirs) && skipDirs.every((d) => typeof d === "string"))) throw new Error("skipDirs must be an array of strings");
			return opts.fs.walk(str(a, "path"), { limit: optionalNumber(a, "limit") ?? 1000, ...(skipDirs ? { skipDirs: skipDirs as string[] } : {}) });
		}
		case "fs.delete":
			return opts.fs.delete(str(a, "path"));
		case "net.fetch": {
			const request: NetRequest = { url: str(a, "url") };
			if (a.method !== undefined) request.method = str(a, "method");
			if (a.body !== undefined) request.body = str(a, "body");
			if (a.headers !== undefined) {
				const headers = record(a.headers);
				if (!Object.values(headers).every((v) => typeof v === "string")) throw new Error("headers must map names to strings");
				request.headers = headers as Record<string, string>;
			}
			const timeoutMs = optionalNumber(a, "timeoutMs");
			if (timeoutMs !== undefined) request.timeoutMs = timeoutMs;
			const maxBytes = optionalNumber(a, "maxBytes");
			if (maxBytes !== undefined) request.maxBytes = maxBytes;
			return opts.net.fetch(request);
		}
		case "shell.exec": {
			const maxTimeout = opts.shellMaxTimeoutMs ?? 30_000;
			const maxOutput = opts.shellMaxOutputBytes ?? 1_000_000;
			const timeoutMs = Math.min(optionalNumber(a, "timeoutMs") ?? maxTimeout, maxTimeout);
			const maxOutputBytes = Math.min(optionalNumber(a, "maxOutputBytes") ?? maxOutput, maxOutput);
			return opts.shell.exec(str(a, "command"), { timeoutMs, maxOutputBytes });
		}
	}
}

function record(value: unknown): Record<string, unknown> {
	if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("syscall arguments must be an object");
	return value as Record<string, unknown>;
}

function str(a: Record<string, unknown>, key: string): string {
	const value = a[key];
	if (typeof value !== "string") throw new Error(`${key} must be a string`);
	return value;
}

function optionalNumber(a: Record<string, unknown>, key: string): number | undefined {
	const value = a[key];
	if (value === undefined) return undefined;
	if (typeof value !== "number" || !Number.isFinite(value) || value < 0) throw new Error(`${key} must be a non-negative number`);
	return value;
}

function firstLine(text: string): string {
	const line = text.split("\n").find((l) => l.trim() !== "") ?? "";
	return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
