/**
 * The hooks of one session: which handlers an event reaches, running them (all of an event's
 * matching handlers at once), and the evidence of every run — a `hook.ran` event and audit record
 * with the event, the handler, its exit, its verdict (and whether it was refused) and duration.
 */
import type { PermissionMode } from "../../kernel/admission/types.js";
import type { EvidenceRecorder } from "../../kernel/evidence/evidence-recorder.js";
import { type HookProcessOptions, type HookProcessResult, runHookProcess } from "../../providers/hook-process.js";
import { matcherPattern } from "./hook-matcher.js";
import { parseHookResult } from "./hook-output.js";
import type { HookEvent, HookHandler, HookRun } from "./hook-types.js";

export interface SessionHooksOptions {
	handlers: readonly HookHandler[];
	/** Where each run is recorded; without one (`warden policy check`), nothing is, and `session` names the caller to the hook. */
	recorder?: EvidenceRecorder;
	session?: string;
	/** Sees each run with why its verdict is not applied (if it is not), before it is recorded. */
	observe?: (run: HookRun, refused: string | undefined) => void;
	/** The workspace: each hook runs there, and is told it as `cwd`. */
	cwd: string;
	/** The user's environment: hooks run as the user. */
	env: NodeJS.ProcessEnv;
	mode: PermissionMode;
	/** A sub-agent's session: its end is `SubagentStop`, not `Stop`. */
	subagent?: boolean;
	/** The process runner (tests may count runs). */
	run?: (opts: HookProcessOptions) => Promise<HookProcessResult>;
}

export interface FireOptions {
	/** What the matcher is matched against: the tool name, or the event's own kind of thing. */
	match?: string;
	callId?: string;
	turn?: number;
	/** Says why the caller will not apply this run's verdict (an upgrade past the policy), before it is recorded. */
	judge?: (run: HookRun) => string | undefined;
	/** The turn's or call's signal: a cancel stops the hooks it is waiting for. */
	signal?: AbortSignal;
}

interface Compiled {
	handler: HookHandler;
	pattern: RegExp | undefined;
}

export class SessionHooks {
	private readonly compiled: Compiled[];
	private pending: HookRun[] = [];

	constructor(private readonly opts: SessionHooksOptions) {
		// Checked when the config was read; a host's bad matcher fails here, before any session record.
		this.compiled = opts.handlers.map((handler) => ({ handler, pattern: matcherPattern(handler.matcher) }));
	}

	/** The same handlers for a sub-agent's session, recorded in its own stream. */
	forChild(recorder: EvidenceRecorder, mode: PermissionMode): SessionHooks {
		return new SessionHooks({ ...this.opts, recorder, mode, subagent: true });
	}

	get stopEvent(): HookEvent {
		return this.opts.subagent ? "SubagentStop" : "Stop";
	}

	has(event: HookEvent): boolean {
		return this.compiled.some((c) => c.handler.event === event);
	}

	/** Context a SessionStart hook gave, held for the first turn's input; taken once. */
	takePending(): HookRun[] {
		const runs = this.pending;
		this.pending = [];
		return runs;
	}

	keepForNextTurn(runs: readonly HookRun[]): void {
		this.pending.push(...runs.filter((r) => r.additionalContext !== undefined));
	}

	/** Runs every handler of `event` whose matcher takes `options.match`, records each run, and returns them in config order. */
	async fire(event: HookEvent, input: Record<string, unknown>, options: FireOptions = {}): Promise<HookRun[]> {
		const target = options.match ?? "";
		const chosen = this.compiled.filter((c) => c.handler.event === event && (c.pattern === undefined || c.pattern.test(target)));
		if (chosen.length === 0) return [];
		const stdin = JSON.stringify({ session_id: this.opts.recorder?.session ?? this.opts.session ?? "", cwd: this.opts.cwd, hook_event_name: event, permission_mode: this.opts.mode, ...input });
		const run = this.opts.run ?? runHookProcess;
		const env = { ...this.opts.env, WARDEN_PROJECT_DIR: this.opts.cwd, CLAUDE_PROJECT_DIR: this.opts.cwd };
		const runs = await Promise.all(
			chosen.map(async ({ handler }): Promise<HookRun> => {
				const result = await run({ command: handler.command, cwd: this.opts.cwd, env, stdin, timeoutMs: handler.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) });
				return { handler, exitCode: result.exitCode, timedOut: result.timedOut, durationMs: result.durationMs, stdout: result.stdout, stderr: result.stderr, ...parseHookResult(event, result, handler.timeoutMs) };
			}),
		);
		for (const r of runs) await this.record(r, options);
		return runs;
	}

	private async record(run: HookRun, options: FireOptions): Promise<void> {
		const { recorder } = this.opts;
		const refused = options.judge?.(run);
		this.opts.observe?.(run, refused);
		if (!recorder) return;
		const { handler } = run;
		const common = {
			event: handler.event,
			handler: handler.command,
			source: handler.source,
			origin: handler.origin,
			...(options.match ? { target: options.match } : {}),
			exit_code: run.exitCode,
			timed_out: run.timedOut,
			verdict: run.verdict,
			...(refused !== undefined ? { refused } : {}),
			...(run.reason !== undefined ? { reason: run.reason } : {}),
			...(run.updatedInput !== undefined ? { updated_input: true } : {}),
			...(run.additionalContext !== undefined ? { additional_context: true } : {}),
			duration_ms: run.durationMs,
		};
		await recorder.emit("hook.ran", { ...(options.callId !== undefined ? { call_id: options.callId } : {}), ...common }, options.turn);
		// The audit keeps what the hook printed, in full (redacted like every record).
		await recorder.audit("hook.ran", { ...common, stdout: run.stdout, stderr: run.stderr }, options.callId, options.turn);
	}
}
