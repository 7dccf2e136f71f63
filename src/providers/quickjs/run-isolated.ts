/**
 * Runs untrusted JavaScript in QuickJS compiled to WebAssembly. Each call gets a fresh runtime and
 * context, disposed afterwards, with a memory limit, a stack limit and a CPU deadline. The one
 * global added is `syscall(name, args)`: arguments leave and results enter as JSON strings only, so
 * no host object, function or prototype is ever reachable from inside.
 *
 * The code is a classic script that leaves the tool's entry function in `globalThis.__warden_tool.default`
 * (what transpileTool's iife output does): `async function (input, syscall)` returning JSON data.
 */
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSWASMModule } from "quickjs-emscripten";

export type IsolationLimit = "memory" | "deadline" | "stack" | "result" | "syscalls";

/** Host side of `syscall`: `args` is plain JSON data; what it returns is sent back as JSON. */
export type SyscallHandler = (name: string, args: unknown) => Promise<unknown>;

export interface IsolatedRun {
	code: string;
	/** JSON data given to the entry function. */
	input: unknown;
	syscall: SyscallHandler;
	memoryBytes: number;
	/** At most MAX_STACK_BYTES: a deeper interpreter stack overflows Node's own before QuickJS notices. */
	stackBytes: number;
	/** Wall time for the whole run, host syscalls included. */
	deadlineMs: number;
	/** Bytes of the result's JSON text. */
	maxResultBytes: number;
	maxSyscalls: number;
	/** Bytes of one syscall result's JSON text handed in; default 4 MiB. */
	maxSyscallBytes?: number;
}

export type IsolatedOutcome = { ok: true; value: unknown } | { ok: false; error: string; limit?: IsolationLimit };

export const MAX_STACK_BYTES = 256 * 1024;
const DEFAULT_SYSCALL_BYTES = 4 * 1024 * 1024;
const ERROR_CHARS = 300;

/**
 * Installs `syscall` over the host function, which sees strings only. The global is a
 * non-configurable getter: QuickJS lets defineProperty replace a non-configurable data property of
 * the global object, but not an accessor.
 */
const BRIDGE = `(host) => {
	const stringify = JSON.stringify, parse = JSON.parse, S = String;
	const syscall = function syscall(name, args) {
		return host(S(name), stringify(args === undefined ? null : args) ?? "null").then((text) => parse(text));
	};
	Object.freeze(syscall);
	Object.defineProperty(globalThis, "syscall", { get: () => syscall, configurable: false, enumerable: false });
	return syscall;
}`;

/** Calls the entry with the input and hands back its result as JSON text; runs after the tool's script. */
const DRIVER = `(async (inputText, syscall) => {
	const tool = globalThis.__warden_tool;
	const entry = tool && typeof tool === "object" ? tool.default : undefined;
	if (typeof entry !== "function") throw new TypeError("the tool has no default export function");
	const value = await entry(JSON.parse(inputText), syscall);
	const text = JSON.stringify(value === undefined ? null : value);
	if (typeof text !== "string") throw new TypeError("the tool's result is not JSON data");
	return text;
})`;

let quickjs: Promise<QuickJSWASMModule> | undefined;

export async function runIsolated(run: IsolatedRun): Promise<IsolatedOutcome> {
	if (run.stackBytes <= 0 || run.stackBytes > MAX_STACK_BYTES) return { ok: false, error: `stack limit must be 1..${MAX_STACK_BYTES} bytes, got ${run.stackBytes}` };
	// Loaded on the first JIT call, not at start-up: most runs never need the WebAssembly module.
	quickjs ??= import("quickjs-emscripten").then((m) => m.getQuickJS());
	const module = await quickjs;
	const runtime = module.newRuntime();
	runtime.setMemoryLimit(run.memoryBytes);
	runtime.setMaxStackSize(run.stackBytes);
	const deadline = Date.now() + run.deadlineMs;
	let limit: IsolationLimit | undefined;
	runtime.setInterruptHandler(() => {
		if (Date.now() <= deadline) return false;
		limit ??= "deadline";
		return true;
	});
	const vm = runtime.newContext();
	const pending = new Set<Promise<void>>();
	const deferreds = new Set<QuickJSDeferredPromise>();
	let wake: (() => void) | undefined;
	let closed = false;
	let syscalls = 0;
	try {
		return await drive(vm, run, {
			deadline,
			limit: () => limit,
			setLimit: (l) => {
				limit ??= l;
			},
			host: (nameHandle, argsHandle) => {
				const deferred = vm.newPromise();
				deferreds.add(deferred);
				const settle = (error: string | undefined, text?: string) => {
					if (closed) return;
					const handle = error === undefined ? vm.newString(text ?? "null") : vm.newError(error);
					if (error === undefined) deferred.resolve(handle);
					else deferred.reject(handle);
					handle.dispose();
					deferreds.delete(deferred);
					deferred.dispose();
					wake?.();
				};
				if (vm.typeof(nameHandle) !== "string" || vm.typeof(argsHandle) !== "string") {
					settle("syscall takes a name and JSON arguments");
				} else if (++syscalls > run.maxSyscalls) {
					limit ??= "syscalls";
					settle(`more than ${run.maxSyscalls} syscalls`);
				} else {
					const name = vm.getString(nameHandle);
					const args = JSON.parse(vm.getString(argsHandle)) as unknown;
					const maxBytes = run.maxSyscallBytes ?? DEFAULT_SYSCALL_BYTES;
					const task = run
						.syscall(name, args)
						.then(
							(value) => {
								const text = JSON.stringify(value === undefined ? null : value);
								if (Buffer.byteLength(text) > maxBytes) settle(`${name}: result larger than ${maxBytes} bytes`);
								else settle(undefined, text);
							},
							(err: unknown) => settle(`${name}: ${oneLine(err)}`),
						)
						.finally(() => pending.delete(task));
					pending.add(task);
				}
				return deferred.handle;
			},
			pending,
			waitForHost: () => new Promise<void>((resolve) => {
				wake = resolve;
			}),
		});
	} finally {
		// A syscall still in flight settles into nothing; its kernel evidence is written before we return.
		closed = true;
		await Promise.allSettled([...pending]);
		for (const d of deferreds) d.dispose();
		vm.dispose();
		runtime.dispose();
	}
}

interface DriveHooks {
	deadline: number;
	limit(): IsolationLimit | undefined;
	setLimit(limit: IsolationLimit): void;
	host(name: QuickJSHandle, args: QuickJSHandle): QuickJSHandle;
	pending: Set<Promise<void>>;
	waitForHost(): Promise<void>;
}

async function drive(vm: QuickJSContext, run: IsolatedRun, hooks: DriveHooks): Promise<IsolatedOutcome> {
	const fail = (error: string, limit?: IsolationLimit): IsolatedOutcome => {
		const hit = hooks.limit() ?? limit ?? limitOf(error);
		return hit ? { ok: false, error: limitMessage(hit, run, error), limit: hit } : { ok: false, error: clip(error) };
	};
	const host = vm.newFunction("host", (name, args) => hooks.host(name, args));
	const bridge = vm.evalCode(BRIDGE, "bridge.js");
	if (bridge.error) {
		host.dispose();
		const error = dumpError(vm, bridge.error);
		return fail(error);
	}
	const installed = vm.callFunction(bridge.value, vm.undefined, host);
	bridge.value.dispose();
	host.dispose();
	if (installed.error) return fail(dumpError(vm, installed.error));
	const syscall = installed.value;

	const loaded = vm.evalCode(run.code, "tool.js");
	const driver = loaded.error ? undefined : vm.evalCode(DRIVER, "driver.js");
	if (loaded.error || !driver || driver.error) {
		syscall.dispose();
		if (loaded.error) return fail(dumpError(vm, loaded.error));
		loaded.value.dispose();
		return fail(driver?.error ? dumpError(vm, driver.error) : "the driver did not load");
	}
	loaded.value.dispose();
	const inputText = vm.newString(JSON.stringify(run.input ?? null));
	const called = vm.callFunction(driver.value, vm.undefined, inputText, syscall);
	inputText.dispose();
	syscall.dispose();
	driver.value.dispose();
	if (called.error) return fail(dumpError(vm, called.error));
	const promise = called.value;
	try {
		for (;;) {
			const jobs = vm.runtime.executePendingJobs();
			if (jobs.error) {
				const error = dumpError(vm, jobs.error);
				return fail(error);
			}
			const state = vm.getPromiseState(promise);
			if (state.type === "fulfilled") {
				const text = vm.typeof(state.value) === "string" ? vm.getString(state.value) : undefined;
				state.value.dispose();
				const hit = hooks.limit();
				if (hit) return fail("", hit);
				if (text === undefined) return fail("the tool's result is not JSON data");
				if (Buffer.byteLength(text) > run.maxResultBytes) return fail("", "result");
				return { ok: true, value: JSON.parse(text) as unknown };
			}
			if (state.type === "rejected") {
				const error = dumpError(vm, state.error);
				return fail(error);
			}
			if (hooks.limit()) return fail("");
			if (hooks.pending.size === 0) return fail("the tool's promise never settles: it awaits something that is not a syscall");
			const left = hooks.deadline - Date.now();
			if (left <= 0) return fail("", "deadline");
			let timer: NodeJS.Timeout | undefined;
			const timedOut = await Promise.race([
				hooks.waitForHost().then(() => false),
				new Promise<boolean>((resolve) => {
					timer = setTimeout(() => resolve(true), left);
				}),
			]);
			clearTimeout(timer);
			if (timedOut) return fail("", "deadline");
		}
	} finally {
		promise.dispose();
	}
}

function dumpError(vm: QuickJSContext, handle: QuickJSHandle): string {
	try {
		// Read as plain properties: dump would run the guest's own toJSON/JSON.stringify.
		const message = readString(vm, handle, "message");
		const name = readString(vm, handle, "name");
		if (message !== undefined) return name ? `${name}: ${message}` : message;
		return vm.typeof(handle) === "string" ? vm.getString(handle) : `thrown ${vm.typeof(handle)}`;
	} catch {
		return "the tool threw a value that cannot be read";
	} finally {
		handle.dispose();
	}
}

function readString(vm: QuickJSContext, handle: QuickJSHandle, key: string): string | undefined {
	if (vm.typeof(handle) !== "object") return undefined;
	const prop = vm.getProp(handle, key);
	try {
		return vm.typeof(prop) === "string" ? vm.getString(prop) : undefined;
	} finally {
		prop.dispose();
	}
}

function limitOf(error: string): IsolationLimit | undefined {
	if (/out of memory/i.test(error)) return "memory";
	if (/stack overflow/i.test(error)) return "stack";
	if (/interrupted/i.test(error)) return "deadline";
	return undefined;
}

function limitMessage(limit: IsolationLimit, run: IsolatedRun, error: string): string {
	switch (limit) {
		case "memory":
			return `memory limit of ${run.memoryBytes} bytes exceeded`;
		case "stack":
			return `stack limit of ${run.stackBytes} bytes exceeded`;
		case "deadline":
			return `deadline of ${run.deadlineMs} ms exceeded`;
		case "result":
			return `result larger than ${run.maxResultBytes} bytes`;
		case "syscalls":
			return error.includes("syscalls") ? clip(error) : `more than ${run.maxSyscalls} syscalls`;
	}
}

function oneLine(err: unknown): string {
	return clip(err instanceof Error ? err.message : String(err));
}

function clip(text: string): string {
	const line = text.split("\n").find((l) => l.trim() !== "") ?? "";
	return line.length > ERROR_CHARS ? `${line.slice(0, ERROR_CHARS)}…` : line;
}
