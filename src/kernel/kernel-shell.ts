/** The shell primitive: one command in the workspace, with a scrubbed environment, recorded as an effect. */
import { runShell } from "../providers/shell-provider.js";
import type { CallAuthority } from "./authority/authority.js";
import type { Budget } from "./budget/budget.js";
import type { ParsedShell } from "./admission/shell/shell-types.js";
import type { EffectSink } from "./effects.js";
import { flowEvidence } from "./flow/flow-evidence.js";
import type { CallFlow, FlowDecisionRecord } from "./flow/flow-types.js";
import { join, type Label, label } from "./flow/label.js";
import { shellEgress } from "./flow/shell-egress.js";
import { type OperationLog, runProtected } from "./operations/protected-operation.js";
import { PrimitiveCancelledError } from "./kernel-errors.js";
import type { ExecOutcome, ShellPrimitives } from "./primitives.js";
import type { WorkspaceRoot } from "./workspace-paths.js";

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
}

/** Variable names that usually hold a credential; a command the model wrote does not get them. */
export const SECRET_ENV_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;

export function scrubEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
	const out: NodeJS.ProcessEnv = {};
	for (const [name, value] of Object.entries(env)) {
		if (value !== undefined && !SECRET_ENV_NAME.test(name)) out[name] = value;
	}
	return out;
}

export function createShellPrimitives(opts: ShellPrimitivesOptions): ShellPrimitives {
	const env = scrubEnv(opts.env);
	return {
		async exec(command, execOpts): Promise<ExecOutcome> {
			if (command.includes("\0")) throw new RangeError("command contains a NUL byte");
			if (!(execOpts.timeoutMs > 0) || !(execOpts.maxOutputBytes >= 0)) {
				throw new RangeError("shell.exec needs a positive timeoutMs and a non-negative maxOutputBytes");
			}
			if (opts.signal.aborted) throw new PrimitiveCancelledError("shell command cancelled before it started");
			// Every sub-command is admitted, or none runs.
			if (opts.authority) opts.authority.admit(opts.authority.shellRequests(command));
			const root = await opts.root();
			const { records: flow, outputLabel } = await admitShellFlow(opts, command);
			// The whole timeout is held before anything is spawned; the command may run that long.
			const held = opts.budget?.reserve("shell_ms", Math.ceil(execOpts.timeoutMs));
			let outcome: ExecOutcome;
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
					dispatch: () =>
						runShell({ command, cwd: root.real, env, timeoutMs: execOpts.timeoutMs, maxOutputBytes: execOpts.maxOutputBytes, signal: opts.signal }),
					// The spawn failed somewhere on the way: what of the command ran, if anything, cannot be told.
					errored: () => ({ state: "unknown" }),
					settled: (ran) => ({
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
							...flowEvidence(flow),
						},
					}),
				});
			} catch (err) {
				// Refused before it was spawned: nothing ran. Otherwise whether it ran is unknown: the whole envelope is charged.
				if (err instanceof PrimitiveCancelledError) held?.release();
				else held?.settle();
				throw err;
			}
			held?.settle(Math.ceil(outcome.durationMs));
			if (opts.flow) opts.flow.observe(outputLabel, `${outcome.stdout}\n${outcome.stderr}`);
			return outcome;
		},
	};
}

/**
 * What the flow plane makes of a command before it runs. The files it names carry their labels
 * into its output; a command that may reach the network is egress of everything it names and of
 * the call's own arguments to each destination it names ("net:unknown" when it names none
 * Warden can read). The shell is not sandboxed: a program that opens a file it does not name, or
 * connects somewhere it does not name, is beyond what the text shows — the sandbox (bubblewrap)
 * is what will enforce that.
 */
async function admitShellFlow(opts: ShellPrimitivesOptions, command: string): Promise<{ records: FlowDecisionRecord[]; outputLabel: Label }> {
	const flow = opts.flow;
	if (!flow || !opts.parseShell) return { records: [], outputLabel: label("internal", "trusted") };
	const egress = shellEgress(opts.parseShell(command));
	const named = await Promise.all([...egress.files, ...egress.globs].map((f) => flow.pathLabel(f)));
	const namedLabel = join(label("internal", "trusted", { kind: "call", ref: opts.callId }), ...named);
	if (!egress.network) return { records: [], outputLabel: namedLabel };
	const records = await flow.admitEgress({ operation: "shell.exec", sinks: egress.sinks, payload: command, label: namedLabel });
	// What a network client prints came from elsewhere.
	return { records, outputLabel: join(namedLabel, label("internal", "untrusted", ...egress.sinks.map((s) => ({ kind: "url" as const, ref: s })))) };
}
