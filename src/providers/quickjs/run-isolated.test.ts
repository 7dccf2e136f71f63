import { describe, expect, it } from "vitest";
import { transpileTool } from "../transpile.js";
import { type IsolatedRun, runIsolated, type SyscallHandler } from "./run-isolated.js";

const LIMITS = { memoryBytes: 16 * 1024 * 1024, stackBytes: 256 * 1024, deadlineMs: 1_000, maxResultBytes: 64 * 1024, maxSyscalls: 10 };
const noSyscalls: SyscallHandler = async (name) => {
	throw new Error(`no syscall ${name} here`);
};

function run(source: string, options: Partial<IsolatedRun> = {}) {
	return runIsolated({ code: transpileTool(source).code, input: null, syscall: noSyscalls, ...LIMITS, ...options });
}

describe("runIsolated", () => {
	it("runs the default export with its input and returns JSON data", async () => {
		const outcome = await run("export default async function (input: { n: number }) { return { doubled: input.n * 2 }; }", { input: { n: 21 } });
		expect(outcome).toEqual({ ok: true, value: { doubled: 42 } });
	});

	it("stops an infinite loop at the deadline", async () => {
		// Returning at all proves the loop was interrupted; the outcome says by what.
		const outcome = await run("export default async function () { for (;;) {} }", { deadlineMs: 200 });
		expect(outcome).toMatchObject({ ok: false, limit: "deadline" });
	});

	it("stops a loop that swallows the interrupt", async () => {
		const outcome = await run("export default async function () { for (;;) { try { for (;;) {} } catch {} } }", { deadlineMs: 200 });
		expect(outcome).toMatchObject({ ok: false, limit: "deadline" });
	});

	it("stops string doubling at the memory limit", async () => {
		const outcome = await run('export default async function () { let s = "x"; for (;;) s = s.repeat(2); }');
		expect(outcome).toMatchObject({ ok: false, limit: "memory" });
		// Concatenation builds ropes: it ends at QuickJS's string length bound instead, still one line.
		const ropes = await run('export default async function () { let s = "x"; for (;;) s += s; }');
		expect(ropes).toEqual({ ok: false, error: "InternalError: string too long" });
	});

	it("stops a huge array at the memory limit", async () => {
		const outcome = await run("export default async function () { return new Array(1e9).fill(1).length; }", { deadlineMs: 5_000 });
		expect(outcome).toMatchObject({ ok: false, limit: "memory" });
	});

	it("stops deep recursion at the stack limit, and Node survives to run the next call", async () => {
		const outcome = await run("function f(n: number): number { return f(n + 1) + 1; } export default async function () { return f(0); }");
		expect(outcome).toMatchObject({ ok: false, limit: "stack" });
		expect(await run("export default async function () { return 1; }")).toEqual({ ok: true, value: 1 });
	});

	it("refuses a stack limit above 256 KiB", async () => {
		const outcome = await run("export default async function () { return 1; }", { stackBytes: 1024 * 1024 });
		expect(outcome.ok).toBe(false);
	});

	it("has no require, process, fetch, timers, console or module loader", async () => {
		const outcome = await run(`export default async function () {
			const g = globalThis as Record<string, unknown>;
			const names = ["require", "process", "fetch", "setTimeout", "setInterval", "console", "std", "os", "module", "Buffer", "WebAssembly"];
			let dynamicImport = "none";
			try { await import("node:fs"); dynamicImport = "loaded"; } catch (e) { dynamicImport = "refused"; }
			return { present: names.filter((n) => typeof g[n] !== "undefined"), dynamicImport, globals: Object.getOwnPropertyNames(globalThis).filter((n) => n === "syscall" || n.startsWith("__")).sort() };
		}`);
		expect(outcome).toEqual({ ok: true, value: { present: [], dynamicImport: "refused", globals: ["__warden_tool", "syscall"] } });
	});

	it("reaches only its own realm through the bridge's constructor chain", async () => {
		const outcome = await run(`export default async function () {
			const g = (syscall as any).constructor.constructor("return this")();
			return { same: g === globalThis, process: typeof g.process, require: typeof g.require };
		}`);
		expect(outcome).toEqual({ ok: true, value: { same: true, process: "undefined", require: "undefined" } });
	});

	it("cannot replace the bridge, and pollution does not reach the host or the next call", async () => {
		const seen: unknown[] = [];
		const syscall: SyscallHandler = async (name, args) => {
			seen.push({ name, args });
			return { fine: true };
		};
		const outcome = await run(
			`export default async function () {
				(Object.prototype as any).polluted = "yes";
				(Array.prototype as any).push = () => 0;
				let replaced = "no";
				try { (globalThis as any).syscall = () => "mine"; } catch { replaced = "threw"; }
				try { Object.defineProperty(globalThis, "syscall", { value: 1 }); replaced = "redefined"; } catch { replaced += ", redefine threw"; }
				try { (syscall as any).extra = 1; } catch {}
				const answer = await syscall("fs.read", { path: "a" });
				return { replaced, same: typeof syscall, answer, extra: (syscall as any).extra === 1 };
			}`,
			{ syscall },
		);
		expect(outcome).toEqual({ ok: true, value: { replaced: "no, redefine threw", same: "function", answer: { fine: true }, extra: false } });
		// The host saw plain JSON: the guest's prototype pollution is not on the host's objects.
		expect(seen).toEqual([{ name: "fs.read", args: { path: "a" } }]);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
		const next = await run("export default async function () { return { polluted: ({} as any).polluted ?? null, push: [].push.length }; }");
		expect(next).toEqual({ ok: true, value: { polluted: null, push: 1 } });
	});

	it("hands syscall arguments over as JSON only (functions and host-looking objects drop out)", async () => {
		const seen: unknown[] = [];
		const outcome = await run(
			`export default async function () {
				return await syscall("fs.read", { path: "a", fn: () => 1, toJSON: undefined, nested: { d: new Date(0) } });
			}`,
			{
				syscall: async (_name, args) => {
					seen.push(args);
					return "ok";
				},
			},
		);
		expect(outcome).toEqual({ ok: true, value: "ok" });
		expect(seen).toEqual([{ path: "a", nested: { d: "1970-01-01T00:00:00.000Z" } }]);
	});

	it("rejects a failed syscall inside the tool with one line", async () => {
		const outcome = await run(`export default async function () {
			try { await syscall("fs.read", { path: "../outside" }); return "read"; } catch (e) { return String((e as Error).message); }
		}`);
		expect(outcome).toEqual({ ok: true, value: "fs.read: no syscall fs.read here" });
	});

	it("bounds huge results", async () => {
		const outcome = await run('export default async function () { return "x".repeat(100_000); }');
		expect(outcome).toMatchObject({ ok: false, limit: "result" });
	});

	it("bounds the number of syscalls, even when the tool catches the refusal", async () => {
		let count = 0;
		const outcome = await run(
			`export default async function () {
				for (let i = 0; i < 100; i++) { try { await syscall("fs.read", { path: "a" }); } catch {} }
				return "done";
			}`,
			{
				maxSyscalls: 3,
				syscall: async () => {
					count++;
					return null;
				},
			},
		);
		expect(outcome).toMatchObject({ ok: false, limit: "syscalls" });
		expect(count).toBe(3);
	});

	it("ends at the deadline while a syscall is still pending", async () => {
		const outcome = await run('export default async function () { return await syscall("net.fetch", {}); }', {
			deadlineMs: 100,
			syscall: () => new Promise((resolve) => setTimeout(() => resolve("late"), 300)),
		});
		expect(outcome).toMatchObject({ ok: false, limit: "deadline" });
	});

	it("reports a promise that can never settle instead of hanging", async () => {
		const outcome = await run("export default async function () { await new Promise(() => {}); }");
		expect(outcome).toMatchObject({ ok: false });
		expect((outcome as { error: string }).error).toMatch(/never settles/);
	});

	it("reports the tool's own error as one line", async () => {
		const outcome = await run('export default async function () { throw new Error("bad input\\nsecond line"); }');
		expect(outcome).toEqual({ ok: false, error: "Error: bad input" });
	});
});

describe("transpileTool", () => {
	it("refuses imports", () => {
		expect(() => transpileTool('import { readFileSync } from "node:fs";\nexport default async function () { return readFileSync; }')).toThrow(/imports are not available/);
		expect(() => transpileTool('export { x } from "./other";\nexport default async function () {}')).toThrow(/imports are not available/);
	});

	it("names the line and column of a syntax error", () => {
		expect(() => transpileTool("export default async function () {\n  return (;\n}")).toThrow(/^tool\.ts:2:\d+: /);
	});

	it("requires a default export", () => {
		expect(() => transpileTool("export async function run() {}")).toThrow(/export default/);
	});

	it("hashes the source", () => {
		const a = transpileTool("export default async function () { return 1; }");
		expect(a.sha256).toMatch(/^[0-9a-f]{64}$/);
		expect(transpileTool("export default async function () { return 2; }").sha256).not.toBe(a.sha256);
	});
});
