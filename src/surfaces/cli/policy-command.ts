/**
 * `warden policy check <tool> <args-json>`: the decision `warden run` would make for one call under
 * the same configuration, with the rule and its source, and nothing run but the PreToolUse hooks a
 * run would run (each one's verdict is shown; `--no-hooks` skips them). Exit 0 whenever it could
 * decide (the decision is in the output); 2 for a usage error, including a call a run would
 * record as invalid (unknown tool, arguments the tool's schema refuses).
 */
import type { Command } from "commander";
import type { ResolvedConfig } from "../../config/config-types.js";
import { PERMISSION_MODES } from "../../kernel/admission/types.js";
import { INTEGRITIES, type Integrity, SENSITIVITIES, type Sensitivity } from "../../kernel/flow/label.js";
import type { FlowLabelInput } from "../../runtime/policy-check-flow.js";
import type { PolicyCheckRequest, PolicyCheckResult } from "../../runtime/policy-check.js";
import { registerApprovedRuleCommands } from "./approved-rules-commands.js";
import type { ConfigCliFlags } from "./cli-config.js";
import { EXIT, UsageError } from "./cli-error.js";

interface CheckFlags extends ConfigCliFlags {
	json?: boolean;
	/** false with --no-hooks. */
	hooks?: boolean;
	stateDir?: string;
	label?: string;
}

const LABEL_USAGE = `--label must be <sensitivity>[,untrusted] with sensitivity one of ${SENSITIVITIES.join(", ")}`;

/** `secret`, `internal,untrusted`: the label of the data to check against the call's sinks. */
export function parseLabelFlag(text: string): FlowLabelInput {
	const [sensitivity, integrity, ...rest] = text.split(",").map((part) => part.trim());
	if (rest.length > 0 || !(SENSITIVITIES as readonly string[]).includes(sensitivity ?? "")) throw new UsageError(`${LABEL_USAGE}, got ${JSON.stringify(text)}`);
	if (integrity !== undefined && !(INTEGRITIES as readonly string[]).includes(integrity)) throw new UsageError(`${LABEL_USAGE}, got ${JSON.stringify(text)}`);
	return { sensitivity: sensitivity as Sensitivity, integrity: (integrity ?? "trusted") as Integrity };
}

/**
 * With the state directory's database, as a session would open: its persisted "always" answers
 * count. Without one there are none to load, and the check creates no state directory.
 */
async function checkWithState(request: PolicyCheckRequest, stateDir: string | undefined): Promise<PolicyCheckResult> {
	const [{ existsSync }, { join }, { checkPolicy }, { Runtime }, { resolveStateDir }] = await Promise.all([
		import("node:fs"),
		import("node:path"),
		import("../../runtime/policy-check.js"),
		import("../../runtime/runtime.js"),
		import("../../store/state-dir.js"),
	]);
	const dir = resolveStateDir(stateDir, process.env);
	if (!existsSync(join(dir, "warden.db"))) return checkPolicy(request, { env: process.env });
	const runtime = await Runtime.open({ stateDir: dir, readOnly: true });
	try {
		return await runtime.checkPolicy(request);
	} finally {
		await runtime.close();
	}
}

/** The check for one call under a resolved config: the flow settings and model as `warden run` would pass them to its session. */
export function policyCheckRequest(config: ResolvedConfig, tool: string, args: unknown, label?: FlowLabelInput, options: { hooks?: boolean } = {}): PolicyCheckRequest {
	const request: PolicyCheckRequest = {
		workspace: config.workspace,
		mode: config.mode.value,
		rules: config.rules,
		runDeny: config.runDeny,
		flow: config.flow,
		protectedPaths: config.protectedPaths,
		tool,
		arguments: args,
	};
	if (label) request.label = label;
	if (config.model) request.model = config.model.value;
	if (config.modelProfiles) request.modelProfiles = config.modelProfiles;
	if (config.grants) request.grants = config.grants.value;
	if (config.ceiling) request.ceiling = config.ceiling.value;
	// The hooks a run would get: the project's are already left out of an untrusted workspace.
	if (options.hooks !== false && config.hooks?.length) request.hooks = config.hooks;
	return request;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerPolicyCommand(program: Command, out: (text: string) => void): void {
	const policy = program.command("policy").description("explain the permission policy");
	policy
		.command("check")
		.description("print the decision warden run would make for one tool call, and the rule and source behind it; runs nothing but its PreToolUse hooks")
		.argument("<tool>", "tool name, e.g. shell, write_file, read_file")
		.argument("<args-json>", `the call's arguments as JSON, e.g. '{"command":"git push"}'`)
		.option("--mode <mode>", `permission mode: ${PERMISSION_MODES.join(" | ")} (default from the config, else workspace-write)`)
		.option("--workspace <dir>", "workspace the call would run in", ".")
		.option("--model <spec>", "model whose sink to explain (default from the config, else $WARDEN_MODEL)")
		.option("--config <file>", "config file to use instead of the user config")
		.option("--no-project-config", "do not read <workspace>/.warden/config.yaml")
		.option("--rules <file>", "YAML file of host rules: { allow: [...], ask: [...], deny: [...] }")
		.option("--allow <rule>", "host rule that allows (repeatable)", collect, [])
		.option("--ask <rule>", "host rule that asks (repeatable)", collect, [])
		.option("--deny <rule>", "run-level deny rule (repeatable)", collect, [])
		.option("--on-ask <answer>", "how warden run would answer an ask: deny | allow")
		.option("--state-dir <dir>", "state directory whose approved rules count (default $WARDEN_HOME)")
		.option("--label <label>", "label of the data to check against the call's sinks: <sensitivity>[,untrusted], e.g. secret (default internal)")
		.option("--no-hooks", "do not run the PreToolUse hooks a run would (user hooks; project hooks in a trusted workspace)")
		.option("--json", "print the explanation as one JSON object")
		.action(async (tool: string, argsJson: string, flags: CheckFlags) => {
			let args: unknown;
			try {
				args = JSON.parse(argsJson);
			} catch (err) {
				throw new UsageError(`<args-json> is not valid JSON: ${(err as Error).message.split("\n")[0]}`);
			}
			const label = flags.label === undefined ? undefined : parseLabelFlag(flags.label);
			// Loaded only when this command runs, so the CLI starts without the runtime.
			const [{ resolveCliConfig }, { policyReport, renderPolicyReport }] = await Promise.all([import("./cli-config.js"), import("./policy-report.js")]);
			const config = await resolveCliConfig(flags, process.env);
			const request = policyCheckRequest(config, tool, args, label, { hooks: flags.hooks !== false });
			const result = await checkWithState(request, flags.stateDir);
			if (!result.valid) throw new UsageError(`${result.error} (warden run would record this call as tool.invalid)`);
			const report = policyReport(result, config);
			out(flags.json ? `${JSON.stringify(report)}\n` : renderPolicyReport(report));
			process.exitCode = EXIT.ok;
		});
	registerApprovedRuleCommands(policy, out);
}
