/**
 * `warden run "<task>"`: one task, no prompts; `--json` streams the events as JSON lines.
 * `warden run --resume <session> "<text>"` continues a session that ended, failed or was cut off.
 */
import type { Command } from "commander";
import type { ResolvedConfig } from "../../config/config-types.js";
import { PERMISSION_MODES } from "../../kernel/admission/types.js";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import { needsSandbox } from "../../kernel/admission/modes.js";
import type { PermissionMode } from "../../kernel/admission/types.js";
import { shellSandbox } from "../../runtime/session-policy.js";
import { type OpenSessionOptions, type ResumeSessionOptions, Runtime } from "../../runtime/runtime.js";
import type { Session } from "../../runtime/session.js";
import { parseBudgetFlag } from "./budget-flag.js";
import { type ConfigCliFlags, resolveCliConfig } from "./cli-config.js";
import { onReaderGone, readerGone } from "./stdout-pipe.js";
import { EXIT, UsageError } from "./cli-error.js";
import { renderEvent } from "./render-event.js";

/** The flags every command that runs a session takes. */
export interface SessionCliFlags extends ConfigCliFlags {
	modelTimeout: string;
	stateDir?: string;
	sandbox?: string;
}

interface RunFlags extends SessionCliFlags {
	json?: boolean;
	resume?: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** Adds the options that say how a session runs: model, mode, workspace, rules, limits, config. */
export function sessionFlags(command: Command): Command {
	return command
		.option("--model <spec>", "scripted:<plan.yaml> | openai:<model> | ollama:<model> | lmstudio:<model> (default $WARDEN_MODEL)")
		.option("--mode <mode>", `permission mode: ${PERMISSION_MODES.join(" | ")} (default from the config, else workspace-write)`)
		.option("--workspace <dir>", "directory the agent works in", ".")
		.option("--on-ask <answer>", "answer to calls that need confirmation: deny | allow (default from the config, else deny)")
		.option("--max-steps <n>", "model calls allowed in the turn (default from the config, else 50)")
		.option("--model-timeout <seconds>", "how long one model call may take", "600")
		.option("--sandbox <policy>", "mode (the mode chooses: none in full-access) | required (shell commands always run in the workspace-write sandbox)", "mode")
		.option("--state-dir <dir>", "where sessions and the audit chain live (default $WARDEN_HOME)")
		.option("--allow <rule>", "host rule that allows, e.g. 'shell(npm test)' (repeatable)", collect, [])
		.option("--ask <rule>", "host rule that asks, e.g. 'write_file(src/**)' (repeatable)", collect, [])
		.option("--deny <rule>", "run-level deny rule no allow can override, e.g. 'shell(git push *)' (repeatable)", collect, [])
		.option("--rules <file>", "YAML file of host rules: { allow: [...], ask: [...], deny: [...] }")
		.option("--budget <counter=limit>", "session limit, e.g. tool_calls=20 or shell_ms=60000 (repeatable)", parseBudgetFlag)
		.option("--config <file>", "config file to use instead of the user config ($WARDEN_CONFIG, ~/.config/warden/config.yaml)")
		.option("--no-project-config", "do not read <workspace>/.warden/config.yaml");
}

export function registerRunCommand(program: Command, out: (text: string) => void): void {
	sessionFlags(
		program
			.command("run")
			.description("run one governed task in a workspace, with no prompts")
			.argument("<task>", "what the agent should do (with --resume: the follow-up)")
			.option("--resume <session>", "continue this session (its workspace; its model unless --model) with the task as the next turn")
			.option("--json", "print one event per line as JSON on stdout, nothing else"),
	).action(async (task: string, flags: RunFlags) => {
		process.exitCode = await runTask(task, flags, out);
	});
}

/**
 * The session options the flags and the layered config give. With `resumed` (the session's row),
 * its workspace replaces --workspace, and the mode and model are the session's unless a flag or
 * config layer names them.
 */
export async function sessionOptionsFromFlags(
	flags: SessionCliFlags,
	onEvent: (event: AnyWardenEvent) => void,
	resumed?: { workspace: string },
): Promise<OpenSessionOptions & { config: ResolvedConfig }> {
	const modelTimeout = Number(flags.modelTimeout);
	if (!Number.isFinite(modelTimeout) || modelTimeout <= 0) throw new UsageError(`--model-timeout must be a positive number of seconds, got "${flags.modelTimeout}"`);
	if (flags.sandbox !== undefined && flags.sandbox !== "mode" && flags.sandbox !== "required") throw new UsageError(`--sandbox must be mode or required, got "${flags.sandbox}"`);
	const config = await resolveCliConfig(resumed ? { ...flags, workspace: resumed.workspace } : flags, process.env);
	return {
		config,
		workspace: config.workspace,
		model: config.model?.value ?? "",
		mode: config.mode.value,
		rules: config.rules,
		runDeny: config.runDeny,
		configNotes: config.ignored,
		confirm: async () => config.onAsk.value === "allow",
		maxSteps: config.maxSteps.value,
		budget: config.budget,
		...(config.grants ? { grants: config.grants.value } : {}),
		...(config.ceiling ? { ceiling: config.ceiling.value } : {}),
		flow: config.flow,
		protectedPaths: config.protectedPaths,
		...(flags.sandbox === "required" ? { sandbox: "required" as const } : {}),
		modelTimeoutMs: Math.ceil(modelTimeout * 1000),
		onEvent,
	};
}

/** Resumes `sessionId` with the flags' options (refused in one line when it cannot be). */
export async function resumeFromFlags(runtime: Runtime, flags: SessionCliFlags, onEvent: (event: AnyWardenEvent) => void, sessionId: string): Promise<Session> {
	const row = await runtime.getSession(sessionId);
	if (!row) throw new UsageError(`unknown session ${sessionId}`);
	return runtime.resumeSession(sessionId, await resumeOptionsFromFlags(flags, onEvent, row));
}

/** Options for resuming the session in `row`: its workspace; its mode and model unless a flag or config layer names them. */
export async function resumeOptionsFromFlags(flags: SessionCliFlags, onEvent: (event: AnyWardenEvent) => void, row: { workspace: string }): Promise<ResumeSessionOptions> {
	const { config, workspace: _workspace, model, mode, ...options } = await sessionOptionsFromFlags(flags, onEvent, row);
	return { ...options, ...(config.model ? { model } : {}), ...(config.mode.source !== "default" ? { mode } : {}) };
}

export function withoutConfig(options: OpenSessionOptions & { config: ResolvedConfig }): OpenSessionOptions {
	const { config: _config, ...rest } = options;
	return rest;
}

async function runTask(task: string, flags: RunFlags, out: (text: string) => void): Promise<number> {
	const print = (event: AnyWardenEvent) => {
		if (flags.json) out(`${JSON.stringify(event)}\n`);
		else {
			const line = renderEvent(event);
			if (line !== undefined) out(`${line}\n`);
		}
	};
	// A new session's flags are checked before the state dir is opened; a resumed one needs its row first.
	const fresh = flags.resume === undefined ? await sessionOptionsFromFlags(flags, print) : undefined;
	const runtime = await Runtime.open(flags.stateDir ? { stateDir: flags.stateDir } : {});
	const controller = new AbortController();
	const onSignal = () => controller.abort(new Error("interrupted"));
	process.once("SIGINT", onSignal);
	process.once("SIGTERM", onSignal);
	// Whoever read the events went away: the run stops as if interrupted, its evidence settled.
	const offReaderGone = onReaderGone(() => controller.abort(new Error("the reader of standard output went away")));
	try {
		const session = fresh ? await runtime.openSession(withoutConfig(fresh)) : await resumeFromFlags(runtime, flags, print, flags.resume as string);
		await warnWithoutSandbox(session.mode, flags.sandbox === "required");
		const result = await session.send(task, { signal: controller.signal });
		await session.end(result.status === "completed" ? "ok" : "error");
		// A reader that went away is not news to report: the run stopped because of it.
		if (result.status !== "completed" && !readerGone()) process.stderr.write(`warden: ${result.error ?? `turn ended with status ${result.status}`}\n`);
		if (!flags.json) {
			const verdict = await runtime.verifyAudit();
			out(
				verdict.ok
					? `audit: ${verdict.checked} records in ${runtime.stateDir}, hash chain valid\n`
					: `audit: CHAIN BROKEN at record ${verdict.firstBad.seq}: ${verdict.firstBad.reason}\n`,
			);
		}
		return result.status === "completed" ? EXIT.ok : EXIT.failed;
	} finally {
		process.off("SIGINT", onSignal);
		process.off("SIGTERM", onSignal);
		offReaderGone();
		await runtime.close();
	}
}

/** Said once per run, before anything is asked: without a sandbox, every shell command is asked about. */
async function warnWithoutSandbox(mode: PermissionMode, required: boolean): Promise<void> {
	if (!needsSandbox(mode, required)) return;
	const sandbox = await shellSandbox();
	if (!sandbox.available) process.stderr.write(`warden: no sandbox here (${sandbox.reason}); every shell command will be asked about\n`);
}
