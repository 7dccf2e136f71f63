/**
 * The kernel primitives bound to one tool call. They confine paths to the workspace and record
 * every effect before returning. Shell commands are confined by the sandbox profile the mode chose
 * (bubblewrap, src/providers/sandbox); file primitives confine paths themselves.
 */
import type { EditorFiles } from "../providers/editor-fs-provider.js";
import type { EditorTerminals } from "../providers/editor-terminal-provider.js";
import { errorCode } from "../providers/fs-provider.js";
import type { CallAuthority } from "./authority/authority.js";
import type { Budget } from "./budget/budget.js";
import type { ParsedShell } from "./admission/shell/shell-types.js";
import type { EffectSink } from "./effects.js";
import type { CallFlow } from "./flow/flow-types.js";
import { consumingLog } from "./operations/consumed-authority.js";
import type { OperationLog } from "./operations/protected-operation.js";
import { createFsPrimitives } from "./kernel-fs.js";
import { createJitPrimitives, type JitEvidence } from "./kernel-jit.js";
import { FsPrimitiveError } from "./kernel-errors.js";
import { createMcpPrimitives, type McpRouter } from "./kernel-mcp.js";
import { createMemoryPrimitives, type MemoryBinding } from "./kernel-memory.js";
import { createNetPrimitives } from "./kernel-net.js";
import { createShellPrimitives, type ShellSandboxOptions } from "./kernel-shell.js";
import type { KernelPrimitives } from "./primitives.js";
import type { ShellOutputSink } from "./shell-output.js";
import type { ProtectedGuard } from "./protected/protected-guard.js";
import { type WorkspaceRoot, workspaceRoot } from "./workspace-paths.js";

export interface KernelOptions {
	/** The workspace directory; every path is confined to its real path. */
	workspace: string;
	/**
	 * The workspace's real path as the session resolved it when it opened: without it, each kernel
	 * resolves the workspace again on first use. Targets are resolved at each primitive whichever.
	 */
	root?: WorkspaceRoot;
	/** The tool call these primitives act for; stamped on every effect record. */
	callId: string;
	/** Cancels the call: a running command's process group is killed, a pending write is not started. */
	signal: AbortSignal;
	recordEffect: EffectSink;
	/** Environment for shell commands before scrubbing; defaults to this process's. */
	env?: NodeJS.ProcessEnv;
	/**
	 * Charged before each primitive touches the world (bytes read and written, shell time), along
	 * its whole ancestor chain; a reservation that does not fit throws BudgetExhaustedError and the
	 * primitive does nothing. Without one, nothing is counted.
	 */
	budget?: Budget;
	/**
	 * The capability layer: asked before each primitive touches anything, with the canonical
	 * resource and the right it needs; a refusal throws CapabilityDeniedError. Without one, no
	 * capability is checked (the runtime always passes one) — except net.fetch, which then refuses.
	 */
	authority?: CallAuthority;
	/**
	 * The flow plane: what each primitive reads is labelled, and each egress (a request, a command
	 * that may reach the network, a file write) is admitted against its sinks' clearance. Without
	 * one, nothing is labelled or checked (the runtime always passes one).
	 */
	flow?: CallFlow;
	/**
	 * Protected operations: each effect is a durable intent before it is dispatched and a settlement
	 * (with its evidence) before the primitive returns. Without one, effects go to recordEffect only.
	 */
	operations?: OperationLog;
	/** The approval lease this call redeemed: each of its intents records it (src/kernel/operations/consumed-authority.ts). */
	lease?: string;
	/** Parses a shell command, so the flow plane can see which files and destinations it names. */
	parseShell?: (command: string) => ParsedShell;
	/**
	 * The shell sandbox: the profile the mode chose and whether bubblewrap works here. Without one
	 * a command runs unconfined (tests of the primitives alone); the runtime always passes one.
	 */
	sandbox?: ShellSandboxOptions;
	/** A human approved this call: without a working sandbox, the only way a shell command runs. */
	approved?: boolean;
	/** A host allow rule admitted this call: its shell command's egress may use the network. */
	hostAllowed?: boolean;
	/**
	 * Protected paths and the exact paths this call is cleared for: fs.write and fs.delete refuse a
	 * protected path without clearance. Without one, the default registry holds and nothing is cleared.
	 */
	protect?: ProtectedGuard;
	/** Where a JIT tool's syscalls and limits are recorded; without it they are not. */
	jitEvidence?: JitEvidence;
	/** Caps on a command a JIT tool runs (the host's shell limits). */
	shellMaxTimeoutMs?: number;
	shellMaxOutputBytes?: number;
	/** An editor's buffers (src/providers/editor-fs-provider.ts): fs.read and fs.write move contents through it. */
	files?: EditorFiles;
	/** An editor's terminals (src/providers/editor-terminal-provider.ts): a bubblewrap-sandboxed command may run in one. */
	terminals?: EditorTerminals;
	/** The session's connected MCP servers; without them mcp.call refuses. */
	mcp?: McpRouter;
	/** The session's memory (store rows, its session and project keys); without it memory.read and memory.write refuse. */
	memory?: MemoryBinding;
	/** Sees each shell command's output as it is written (a terminal's live tail). */
	shellOutput?: ShellOutputSink;
}

export function createKernel(opts: KernelOptions): KernelPrimitives {
	let rootPromise: Promise<WorkspaceRoot> | undefined;
	const root = () => {
		rootPromise ??= (opts.root ? Promise.resolve(opts.root) : workspaceRoot(opts.workspace)).catch((err: unknown) => {
			const code = errorCode(err);
			throw new FsPrimitiveError(
				code === "ENOENT" ? `workspace ${opts.workspace} does not exist` : `workspace ${opts.workspace} cannot be used: ${code ?? String(err)}`,
			);
		});
		return rootPromise;
	};
	// Each intent carries the one-use authority its call spent, so a reopen never hands it out again.
	const operations = opts.operations ? consumingLog(opts.operations, opts.authority, opts.lease) : undefined;
	const shared = { root, callId: opts.callId, signal: opts.signal, recordEffect: opts.recordEffect, budget: opts.budget, authority: opts.authority, flow: opts.flow, operations };
	// Each family is built when the call first uses it: a call uses one or two of the six, and
	// building all of them was a measurable part of every call. Built once, each is the same object
	// on every use, and a JIT tool's syscalls enter these very objects: no second path to the world.
	const fs = once(() => createFsPrimitives({ ...shared, protect: opts.protect, files: opts.files }));
	const shell = once(() =>
		createShellPrimitives({ ...shared, env: opts.env ?? process.env, parseShell: opts.parseShell, sandbox: opts.sandbox, approved: opts.approved, hostAllowed: opts.hostAllowed, terminals: opts.terminals, output: opts.shellOutput }),
	);
	const net = once(() => createNetPrimitives(shared));
	const mcp = once(() => createMcpPrimitives({ ...shared, servers: opts.mcp }));
	const jit = once(() =>
		createJitPrimitives({
			callId: opts.callId,
			fs: fs(),
			shell: shell(),
			net: net(),
			...(opts.jitEvidence ? { evidence: opts.jitEvidence } : {}),
			...(opts.shellMaxTimeoutMs !== undefined ? { shellMaxTimeoutMs: opts.shellMaxTimeoutMs } : {}),
			...(opts.shellMaxOutputBytes !== undefined ? { shellMaxOutputBytes: opts.shellMaxOutputBytes } : {}),
		}),
	);
	const memory = once(() => createMemoryPrimitives({ ...shared, memory: opts.memory }));
	return {
		get fs() {
			return fs();
		},
		get shell() {
			return shell();
		},
		get net() {
			return net();
		},
		get jit() {
			return jit();
		},
		get mcp() {
			return mcp();
		},
		get memory() {
			return memory();
		},
	};
}

function once<T>(build: () => T): () => T {
	let built: { value: T } | undefined;
	return () => {
		built ??= { value: build() };
		return built.value;
	};
}
