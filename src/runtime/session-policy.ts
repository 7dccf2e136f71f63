/**
 * The policy a session decides under, built from what the host chose. Sessions and policy checks
 * both build it here, so an explanation is given under exactly the policy a run would have.
 */
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { parseRule } from "../kernel/admission/rules.js";
import type { Decision, PermissionMode, PermissionRule, PolicyContext, PolicySandbox } from "../kernel/admission/types.js";
import { PERMISSION_MODES } from "../kernel/admission/types.js";
import { ProtectedPathError, type ProtectedPathRule, ProtectedPaths } from "../kernel/protected/protected-paths.js";
import { resolveRealPath } from "../kernel/real-path.js";
import { realDirectory } from "../providers/directory-probe.js";
import { programLookup } from "../providers/program-lookup.js";
import { probeSandbox, type SandboxChoice, sandboxChoice } from "../providers/sandbox/sandbox-probe.js";
import { RuntimeConfigError } from "./runtime-config-error.js";
import type { RuleEntry, SessionOptions } from "./session-options.js";

export type PolicyOptions = Pick<SessionOptions, "workspace" | "mode" | "rules" | "rulesSource" | "runDeny" | "sandbox" | "protectedPaths">;

function parseEntries(entries: readonly RuleEntry[] | undefined, outcome: Decision, defaultSource: string): PermissionRule[] {
	return (entries ?? []).map((entry) =>
		typeof entry === "string" ? parseRule(entry, outcome, defaultSource) : parseRule(entry.rule, outcome, entry.source),
	);
}

export async function sessionPolicy(options: PolicyOptions, env: NodeJS.ProcessEnv): Promise<PolicyContext> {
	// Hosts in plain JavaScript can omit this; without the check it fails deep inside with Node's wording.
	if (typeof options.workspace !== "string" || options.workspace === "") {
		throw new RuntimeConfigError("workspace is required: pass the directory the agent works in");
	}
	const mode: PermissionMode = options.mode ?? "workspace-write";
	if (!PERMISSION_MODES.includes(mode)) {
		throw new RuntimeConfigError(`unknown mode "${mode}"; use one of ${PERMISSION_MODES.join(", ")}`);
	}
	const workspace = await realDirectory(options.workspace, "workspace");
	const source = options.rulesSource ?? "host";
	// Deny, then ask, then allow: the engine takes the first host rule that matches.
	const hostRules: PermissionRule[] = [
		...parseEntries(options.rules?.deny, "deny", source),
		...parseEntries(options.rules?.ask, "ask", source),
		...parseEntries(options.rules?.allow, "allow", source),
	];
	const runDenyRules = parseEntries(options.runDeny, "deny", "run");
	const home = env.HOME ?? homedir();
	const sandbox = await shellSandbox(providerChoice(env));
	sandbox.protect = [userConfigDir(env, home)];
	if (options.sandbox !== undefined && options.sandbox !== "mode" && options.sandbox !== "required") {
		throw new RuntimeConfigError(`sandbox must be "mode" or "required", got ${JSON.stringify(options.sandbox)}`);
	}
	if (options.sandbox === "required") sandbox.required = true;
	const protectedPaths = hostProtectedPaths(options.protectedPaths);
	// The PATH shell commands run with is the session's own (the shell primitive passes it on).
	const resolveProgram = programLookup(env.PATH, workspace);
	return { mode, workspace, home, runDenyRules, hostRules, resolvePath: resolveRealPath, resolveProgram, sandbox, protectedPaths };
}

/** The built-in registry plus the host's entries; a bad entry is a one-line config error naming it. */
function hostProtectedPaths(entries: PolicyOptions["protectedPaths"]): ProtectedPaths {
	if (entries !== undefined && !Array.isArray(entries)) throw new RuntimeConfigError("protectedPaths must be a list of { pattern, reason }");
	const rules = (entries ?? []).map((e, i): ProtectedPathRule => {
		if (typeof e !== "object" || e === null || typeof e.reason !== "string" || e.reason.trim() === "") {
			throw new RuntimeConfigError(`protectedPaths[${i}] must be { pattern, reason } with a non-empty reason`);
		}
		return { pattern: e.pattern, reason: e.reason, source: "source" in e && typeof e.source === "string" ? e.source : "host" };
	});
	try {
		return new ProtectedPaths(rules);
	} catch (err) {
		if (err instanceof ProtectedPathError) throw new RuntimeConfigError(`protectedPaths: ${err.message}`);
		throw err;
	}
}

/** Whether shell commands can be sandboxed here, and by what: each provider is proven once per process. */
export async function shellSandbox(choice: SandboxChoice = settingOrAuto()): Promise<PolicySandbox> {
	const probe = await probeSandbox(choice);
	return probe.available ? { available: true, provider: probe.provider } : { available: false, reason: probe.reason };
}

/** The setting where it names a provider; a bad value is reported when the session opens (providerChoice). */
function settingOrAuto(): SandboxChoice {
	try {
		return sandboxChoice(process.env);
	} catch {
		return "auto";
	}
}

/** WARDEN_SANDBOX_PROVIDER, read once per session: a value that names no provider is a configuration error. */
function providerChoice(env: NodeJS.ProcessEnv): SandboxChoice {
	try {
		return sandboxChoice(env);
	} catch (err) {
		throw new RuntimeConfigError(err instanceof Error ? err.message : String(err));
	}
}

/** The user config's directory ($WARDEN_CONFIG's, else <config home>/warden), kept read-only in the sandbox. */
function userConfigDir(env: NodeJS.ProcessEnv, home: string): string {
	if (env.WARDEN_CONFIG) return dirname(env.WARDEN_CONFIG);
	const xdg = env.XDG_CONFIG_HOME;
	return join(xdg && isAbsolute(xdg) ? xdg : join(home, ".config"), "warden");
}
