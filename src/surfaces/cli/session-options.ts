/** The session options `warden run` and `warden runs` build from their flags and the layered config. */
import type { ResolvedConfig } from "../../config/config-types.js";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import type { OpenSessionOptions, ResumeSessionOptions, Runtime } from "../../runtime/runtime.js";
import type { Session } from "../../runtime/session.js";
import { resolveCliConfig } from "./cli-config.js";
import { UsageError } from "./cli-error.js";
import { defaultModelSpec, terminalOfferIo } from "./default-model-offer.js";
import type { SessionCliFlags } from "./run-command.js";

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
	// A resumed session keeps its own model; a new one with none configured is offered the default.
	const model = config.model?.value ?? (resumed ? "" : await defaultModelSpec(process.env, terminalOfferIo()));
	return {
		config,
		workspace: config.workspace,
		model,
		...(config.modelProfiles ? { modelProfiles: config.modelProfiles } : {}),
		mode: config.mode.value,
		rules: config.rules,
		runDeny: config.runDeny,
		configNotes: config.ignored,
		confirm: async () => ({ kind: config.onAsk.value === "allow" ? "allow_once" : "deny", by: "on-ask" }),
		maxSteps: config.maxSteps.value,
		budget: config.budget,
		...(config.grants ? { grants: config.grants.value } : {}),
		...(config.ceiling ? { ceiling: config.ceiling.value } : {}),
		flow: config.flow,
		protectedPaths: config.protectedPaths,
		...(config.mcpServers?.length ? { mcpServers: config.mcpServers } : {}),
		...(config.hooks?.length ? { hooks: config.hooks } : {}),
		...(flags.sandbox === "required" ? { sandbox: "required" as const } : {}),
		modelTimeoutMs: Math.ceil(modelTimeout * 1000),
		...(config.context ? { context: config.context } : {}),
		...(config.memory ? { memory: config.memory.value } : {}),
		// AGENTS.md from a project the user does not trust is labelled untrusted data; it never changes authority either way.
		instructions: { trusted: config.trustedProject },
		// A project's skills are untrusted data likewise; a skill never changes authority either way.
		skills: { trusted: config.trustedProject },
		onEvent,
	};
}

/** Resumes `sessionId` with the flags' options (refused in one line when it cannot be). */
export async function resumeFromFlags(
	runtime: Runtime,
	flags: SessionCliFlags,
	onEvent: (event: AnyWardenEvent) => void,
	sessionId: string,
	host?: Pick<OpenSessionOptions, "confirm" | "release" | "askUser" | "elicit" | "askTimeoutMs">,
): Promise<Session> {
	const row = await runtime.getSession(sessionId);
	if (!row) throw new UsageError(`unknown session ${sessionId}`);
	return runtime.resumeSession(sessionId, { ...(await resumeOptionsFromFlags(flags, onEvent, row)), ...host });
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
