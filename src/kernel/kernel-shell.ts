/**
 * The shell primitive: one command in the workspace, with a scrubbed environment, recorded as an
 * effect. Under a sandbox profile it runs inside bubblewrap or Landlock: the workspace is the only writable
 * place (workspace-write) or none is (read-only), and the network is there only when the flow plane
 * admitted the command's egress. Without a working sandbox a command runs only when a human
 * approved that very call; it is never run unconfined silently.
 */
import { prepareSandbox, type SandboxProgram } from "../providers/sandbox/prepare-sandbox.js";
import { DENIED_WRITE, DENIED_WRITE_LANDLOCK, sandboxDenials } from "../providers/sandbox/sandbox-denials.js";
import type { SandboxProfile, SandboxProfileName, SandboxProviderName } from "../providers/sandbox/sandbox-profile.js";
import { probeSandbox, type SandboxChoice } from "../providers/sandbox/sandbox-probe.js";
import type { EditorTerminals } from "../providers/editor-terminal-provider.js";
import { runShell } from "../providers/shell-provider.js";
import type { CallAuthority } from "./authority/authority.js";
import type { Budget } from "./budget/budget.js";
import type { ParsedShell } from "./admission/shell/shell-types.js";
import type { EffectSink } from "./effects.js";
import { flowEvidence } from "./flow/flow-evidence.js";
import type { CallFlow } from "./flow/flow-types.js";
import { createRedactor, SECRET_ENV_NAME } from "./flow/redaction.js";
import { admitShellFlow, type ShellFlowAdmission } from "./flow/shell-flow.js";
import { type OperationLog, runProtected } from "./operations/protected-operation.js";
import { PrimitiveCancelledError } from "./kernel-errors.js";
import type { ExecOutcome, ShellPrimitives } from "./primitives.js";
import type { ProtectedPaths } from "./protected/protected-paths.js";
import { sandboxProtectedMatch, sandboxProtectedRoots } from "./protected/sandbox-roots.js";
import { resolveRealPath } from "./real-path.js";
import type { ShellOutputSink } from "./shell-output.js";
import type { WorkspaceRoot } from "./workspace-paths.js";

/** How commands are confined; the mode preset chooses the profile ("none": full-access, by the host's choice). */
export interface ShellSandboxOptions {
	profile: SandboxProfileName | "none";
	/** Whether a working bubblewrap was found (probeSandbox); without one only approved calls run. */
	available: boolean;
	/** Why there is none, for the refusal. */
	reason?: string | undefined;
	/** The user's home: its credential stores are hidden from the command. */
	home?: string | undefined;
	/** Warden's state and config dirs: read-only even when they lie inside the workspace. */
	protect?: readonly string[] | undefined;
	/** Which confinement to use (WARDEN_SANDBOX_PROVIDER); default the setting's, else bubblewrap, else Landlock. */
	provider?: SandboxChoice | undefined;
	/** The host's protected paths, kept read-only in the sandbox whether or not they exist; default the registry's defaults. */
	protectedPaths?: ProtectedPaths | undefined;
}

/** No sandbox works here and no human approved this call: it does not run. */
export class SandboxUnavailableError extends Error {
	override name = "SandboxUnavailableError";
}

/** What the evidence says about the sandbox a command ran in. */
interface SandboxRecord {
	/** The confinement that ran it; absent when none did. */
	provider?: SandboxProviderName;
	profile: SandboxProfileName | "none";
	network: boolean;
	denied?: string[];
	/** Set when it ran unconfined because a human approved it where no sandbox works. */
	unsandboxed?: string;
	/** The editor whose terminal ran it, when one did. */
	terminal?: string;
	/** Set when the walk for protected paths stopped at its bounds: what lies beyond was held only by the named roots, and not checked after. */
	unscanned?: string;
}

export interface ShellPrimitivesOptions {
	root: () => Promise<WorkspaceRoot>;
	callId: string;
	signal: AbortSignal;
	recordEffect: EffectSink;
	env: NodeJS.ProcessEnv;
	budget?: Budget | undefined;
	authority?: CallAuthority | undefined;
	flow?: CallFlow | undefined;
	parseShell?: ((command: string) => ParsedShell) | undefined;
	operations?: OperationLog | undefined;
	/** Without one the command runs unconfined, as before sandboxes existed (the runtime always passes one). */
	sandbox?: ShellSandboxOptions | undefined;
	/** A human approved this call (an ask answered yes): the one case a command may run without a working sandbox. */
	approved?: boolean | undefined;
	/** The host named this command in an allow rule: like an approval, it lets the command's own egress use the network. */
	hostAllowed?: boolean | undefined;
	/**
	 * An editor's terminals: a command confined by bubblewrap runs there, wrapped as it would be here
	 * (bubblewrap seals the command's environment inside its arguments, so nothing the editor adds
	 * reaches it). Any other command — unconfined, or under Landlock, whose environment the editor
	 * could extend — runs in Warden's own shell provider.
	 */
	terminals?: EditorTerminals | undefined;
	/** Sees the output as the command writes it (src/kernel/shell-output.ts); the evidence is the same with or without it. */
	output?: ShellOutputSink | undefined;
}

/** Recognises secret shapes in a value (no known secrets of its own: only the shapes). */
const shapes = createRedactor({ env: {} });

/**
 * Drops variables named like a secret (the names whose values the redactor masks), and any whose
 * value looks like one whatever its name
 * (`DATABASE_URL=postgres://app:pw@db/app`, a bearer token in `EXTRA_HEADER`).
 */
export function scrubEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
	const out: NodeJS.ProcessEnv = {};
	for (const [name, value] of Object.entries(env)) {
		if (value === undefined || SECRET_ENV_NAME.test(name)) continue;
		if (shapes.redactText(value) !== value) continue;
		out[name] = value;
	}
	return out;
}

export function createShellPrimitives(opts: ShellPrimitivesOptions): ShellPrimitives {
	// Scrubbed when a command first runs: the primitives are made for every tool call, most run none.
	let scrubbed: NodeJS.ProcessEnv | undefined;
	const env = (): NodeJS.ProcessEnv => (scrubbed ??= scrubEnv(opts.env));
	return {
		async exec(command, execOpts): Promise<ExecOutcome> {
			if (command.includes("\0")) throw new RangeError("command contains a NUL byte");
			if (!(execOpts.timeoutMs > 0) || !(execOpts.maxOutputBytes >= 0)) {
				throw new RangeError("shell.exec needs a positive timeoutMs and a non-negative maxOutputBytes");
			}
			if (opts.signal.aborted) throw new PrimitiveCancelledError("shell command cancelled before it started");
			const root = await opts.root();
			// Every sub-command, and every file it visibly writes in the workspace, is admitted, or none runs.
			if (opts.authority) opts.authority.admit(opts.authority.shellRequests(command, { workspace: root.real, home: opts.env.HOME ?? "/", resolvePath: resolveRealPath }));
			const { records: flow, network, settle, primeRedactor } = await shellFlow(opts, command, root.real);
			// A live view is redacted line by line as it is written: it is shown only when the values of every
			// secret the command may print are known before it runs; otherwise the output is seen when it ends.
			const live = opts.output && (await primeRedactor()) ? opts.output : undefined;
			const confined = await confinement(opts, root.real, command, env(), network);
			// The whole timeout is held before anything is spawned; the command may run that long.
			const held = opts.budget?.reserve("shell_ms", Math.ceil(execOpts.timeoutMs));
			let outcome: ExecOutcome;
			// What the sandbox put aside after the command: protected paths it made that are not git's own.
			let putAside: readonly string[] = [];
			try {
				outcome = await runProtected(opts.operations, opts.recordEffect, {
					kind: "shell.exec",
					callId: opts.callId,
					resource: `shell:${command}`,
					intent: { command },
					reserved: { shell_ms: Math.ceil(execOpts.timeoutMs) },
					revalidate: () => {
						if (opts.signal.aborted) throw new PrimitiveCancelledError("shell command cancelled before it started");
					},
					dispatch: async () => {
						// Made just before the spawn and undone after it: stand-ins for absent protected paths, a private temp dir.
						const wrap = confined.prepare ? await confined.prepare() : undefined;
						try {
							const terminal = wrap && confined.record?.provider === "bwrap" ? opts.terminals : undefined;
							if (terminal && wrap && confined.record) {
								confined.record.terminal = terminal.name;
								return await terminal.run({ program: wrap.program, args: wrap.args, env: wrap.env, cwd: root.real, timeoutMs: execOpts.timeoutMs, maxOutputBytes: execOpts.maxOutputBytes, signal: opts.signal, callId: opts.callId });
							}
							return await runShell({
								command,
								cwd: root.real,
								env: wrap ? wrap.env : env(),
								timeoutMs: execOpts.timeoutMs,
								maxOutputBytes: execOpts.maxOutputBytes,
								signal: opts.signal,
								wrap,
								onOutput: live ? (stream, text) => live.write(stream, text) : undefined,
							});
						} finally {
							opts.output?.end();
							await wrap?.cleanup();
							if (wrap) putAside = wrap.refused;
							if (wrap?.unscanned && confined.record) confined.record.unscanned = wrap.unscanned;
						}
					},
					// The spawn failed somewhere on the way: what of the command ran, if anything, cannot be told.
					errored: () => ({ state: "unknown" }),
					settled: (ran) => {
						if (confined.record && confined.prepare) {
							const denied = [...denialsOf(confined.record, ran.stderr), ...putAside.map((p) => `a protected path made by the command, put aside: ${p}`)];
							if (denied.length > 0) confined.record.denied = denied;
						}
						return {
						// A command that ran is committed whatever its exit status: its effects are whatever it did.
						state: "committed",
						outcome: { exit_code: ran.exitCode, signal: ran.signal, timed_out: ran.timedOut, cancelled: ran.cancelled },
						effect: {
							command,
							exit_code: ran.exitCode,
							signal: ran.signal,
							timed_out: ran.timedOut,
							cancelled: ran.cancelled,
							duration_ms: ran.durationMs,
							truncated: ran.truncated,
							...(confined.record ? { sandbox: confined.record } : {}),
							...flowEvidence(flow),
						},
						};
					},
				});
			} catch (err) {
				// Refused before it was spawned: nothing ran. Otherwise whether it ran is unknown: the whole envelope is charged.
				if (err instanceof PrimitiveCancelledError) held?.release();
				else held?.settle();
				throw err;
			}
			held?.settle(Math.ceil(outcome.durationMs));
			// The model is told what the sandbox refused, so it does not retry blindly or misread the failure.
			const denied = confined.record?.denied;
			if (denied && denied.length > 0) {
				const sep = outcome.stderr === "" || outcome.stderr.endsWith("\n") ? "" : "\n";
				outcome = { ...outcome, stderr: `${outcome.stderr}${sep}[warden sandbox] denied: ${denied.join("; ")}\n` };
			}
			await settle(`${outcome.stdout}\n${outcome.stderr}`);
			return outcome;
		},
	};
}

/** Without a flow plane or a parser the command carries nothing, and a sandboxed one gets no network. */
async function shellFlow(opts: ShellPrimitivesOptions, command: string, root: string): Promise<Pick<ShellFlowAdmission, "records" | "network" | "settle" | "primeRedactor">> {
	if (!opts.flow || !opts.parseShell) return { records: [], network: false, settle: async () => {}, primeRedactor: async () => true };
	return admitShellFlow({ flow: opts.flow, parseShell: opts.parseShell, callId: opts.callId, root, authority: opts.authority, approved: opts.approved, hostAllowed: opts.hostAllowed }, command);
}

interface Confinement {
	prepare?: (() => ReturnType<typeof prepareSandbox>) | undefined;
	record?: SandboxRecord | undefined;
}

/** How this command will be confined, or a refusal when it cannot be and no human approved it. */
async function confinement(opts: ShellPrimitivesOptions, workspace: string, command: string, env: NodeJS.ProcessEnv, network: boolean): Promise<Confinement> {
	const sandbox = opts.sandbox;
	if (!sandbox) return {};
	if (sandbox.profile === "none") return { record: { profile: "none", network: true } };
	const probe = sandbox.available ? await probeSandbox(sandbox.provider) : undefined;
	if (!probe?.available) {
		const why = probe && !probe.available ? probe.reason : (sandbox.reason ?? "no sandbox (bubblewrap or Landlock) is available");
		if (!opts.approved) throw new SandboxUnavailableError(`no sandbox: ${why}; a shell command runs here only when a human approves it`);
		return { record: { profile: "none", network: true, unsandboxed: `approved without a sandbox (${why})` } };
	}
	const profile: SandboxProfile = {
		name: sandbox.profile,
		workspace,
		network,
		home: sandbox.home,
		protect: sandbox.protect,
		protectedRoots: sandboxProtectedRoots(sandbox.protectedPaths),
		protectedMatch: sandboxProtectedMatch(sandbox.protectedPaths),
	};
	const program: SandboxProgram = { provider: probe.provider, program: probe.program };
	return { prepare: () => prepareSandbox(program, profile, command, env), record: { provider: probe.provider, profile: sandbox.profile, network } };
}

function denialsOf(record: SandboxRecord, stderr: string): string[] {
	const found = sandboxDenials(stderr, { provider: record.provider, network: record.network });
	return record.profile === "read-only" ? found.map((d) => (d === DENIED_WRITE || d === DENIED_WRITE_LANDLOCK ? "write (the read-only sandbox allows none)" : d)) : found;
}
