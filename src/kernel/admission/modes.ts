/**
 * Mode rules (the Agentao paper's Table 2) as data. Each rule is a PermissionRule with a condition
 * on the canonicalized subject instead of a user-written pattern; the first matching rule decides.
 *
 * A read-only shell command is auto-allowed only while every file it names is inside the workspace,
 * as written and as its real path: the file tools are confined to the workspace, and a `cat` of
 * `/etc/…`, `../other-repo` or a symlink that leads out must not be an easier way past that
 * boundary. Such a read asks in workspace-write and is denied in plan and read-only, which have no
 * one to ask for reads by design; full-access allows it, as it allows any shell command that is not
 * destructive. A word only known at run time (`cat "$F"`) counts as possibly outside.
 *
 * Where a sandbox works, workspace-write also allows any other command that the sandbox confines
 * as a whole: not opaque, naming nothing outside the workspace, not privileged or destructive, and
 * not able to reach the network (the sandbox gives it none, and its output cannot leave). The
 * sandbox, not the text, then keeps its writes in the workspace.
 *
 * full-access allows every tool, as Table 2 has it (`web_fetch`, `register_tool`, JIT tools
 * included), except destructive and privileged commands, which still ask. What stays above it is
 * not a mode's business: hardline, protected paths and the flow plane, which still refuses to let a
 * secret leave through an allowed fetch.
 */
import { globMayNameSecret, secretFileMatcher } from "../flow/file-labels.js";
import { shellEgress } from "../flow/shell-egress.js";
import { isDestructiveCommand, isReadOnlyCommand } from "./command-classes.js";
import { toolMatches, type RuleTarget } from "./rules.js";
import type { SimpleCommand } from "./shell/shell-types.js";
import type { Decision, PermissionMode, PermissionRule, PolicySandbox, ToolFacts } from "./types.js";

export type ModeCondition =
	| "always"
	| "inside-workspace"
	| "outside-workspace"
	| "read-only-command"
	| "read-only-command-outside"
	| "destructive-command"
	| "privileged-command"
	| "not-read-only-tool"
	| "sandboxed-command";

export interface ModeRule extends PermissionRule {
	when: ModeCondition;
}

export const READ_TOOLS = ["read_file", "list_dir", "glob", "grep"] as const;
export const WRITE_TOOLS = ["write_file", "edit_file"] as const;

const CONDITION_TEXT: Record<ModeCondition, string | undefined> = {
	always: undefined,
	"inside-workspace": "<inside the workspace>",
	"outside-workspace": "<outside the workspace>",
	"read-only-command": "<read-only command>",
	"read-only-command-outside": "<read-only command outside the workspace>",
	"destructive-command": "<destructive command>",
	"privileged-command": "<sudo/doas/su command>",
	"not-read-only-tool": "<not read-only>",
	"sandboxed-command": "<confined by the sandbox>",
};

/** Why a sandboxed-command rule allowed a call. */
export const SANDBOXED_REASON = "runs in the workspace-write sandbox (no network, writes only inside the workspace)";

function rules(mode: PermissionMode, entries: [tools: readonly string[], when: ModeCondition, outcome: Decision][]): ModeRule[] {
	return entries.flatMap(([tools, when, outcome]) =>
		tools.map((tool) => {
			const shown = CONDITION_TEXT[when];
			const rule: ModeRule = { tool, outcome, source: `mode:${mode}`, text: shown ? `${tool}(${shown})` : tool, when };
			return rule;
		}),
	);
}

const SHELL = ["shell"];
const ANY = ["*"];

export const MODE_RULES: Readonly<Record<PermissionMode, readonly ModeRule[]>> = {
	"read-only": rules("read-only", [
		[READ_TOOLS, "always", "allow"],
		[SHELL, "read-only-command-outside", "deny"],
		[SHELL, "read-only-command", "allow"],
	]),
	"workspace-write": rules("workspace-write", [
		[READ_TOOLS, "always", "allow"],
		[WRITE_TOOLS, "inside-workspace", "allow"],
		[WRITE_TOOLS, "outside-workspace", "ask"],
		[SHELL, "destructive-command", "deny"],
		[SHELL, "privileged-command", "ask"],
		[SHELL, "read-only-command-outside", "ask"],
		[SHELL, "read-only-command", "allow"],
		[SHELL, "sandboxed-command", "allow"],
		[SHELL, "always", "ask"],
	]),
	"full-access": rules("full-access", [
		[READ_TOOLS, "always", "allow"],
		[WRITE_TOOLS, "always", "allow"],
		[SHELL, "destructive-command", "ask"],
		[SHELL, "privileged-command", "ask"],
		[SHELL, "always", "allow"],
		[ANY, "always", "allow"],
	]),
	plan: rules("plan", [
		[READ_TOOLS, "always", "allow"],
		[WRITE_TOOLS, "always", "deny"],
		[SHELL, "read-only-command-outside", "deny"],
		[SHELL, "read-only-command", "allow"],
		[SHELL, "always", "deny"],
		[ANY, "not-read-only-tool", "deny"],
	]),
};

/** A command the sandbox confines whole: its program is known, it names only workspace files and it cannot use the network. */
function sandboxConfines(command: SimpleCommand, outside: string | undefined): boolean {
	// Arguments read at run time (xargs, find -exec) may name anything: like `cat "$F"`, possibly outside.
	if (command.opaque || command.argsFromInput || outside !== undefined || command.privileged || isDestructiveCommand(command)) return false;
	const egress = shellEgress({ source: command.text, commands: [command], functions: [], malformed: false });
	if (egress.network) return false;
	// A command naming a secret file (`cp .env notes/`) would carry the secret into a file the flow
	// plane cannot label: the host is asked instead.
	return !egress.files.some((f) => isSecretFile(f)) && !egress.globs.some((g) => globMayNameSecret(g, isSecretFile));
}

const isSecretFile = secretFileMatcher();

function conditionHolds(when: ModeCondition, tool: ToolFacts, target: RuleTarget | undefined, sandbox: PolicySandbox | undefined): boolean {
	switch (when) {
		case "always":
			return true;
		case "inside-workspace":
			return target?.kind === "path" && target.path.inside;
		case "outside-workspace":
			return target?.kind !== "path" || !target.path.inside;
		case "read-only-command":
			return target?.kind === "command" && target.notSystemProgram === undefined && isReadOnlyCommand(target.command);
		case "read-only-command-outside":
			return target?.kind === "command" && target.outside !== undefined && target.notSystemProgram === undefined && isReadOnlyCommand(target.command);
		case "destructive-command":
			return target?.kind === "command" && isDestructiveCommand(target.command);
		case "privileged-command":
			return target?.kind === "command" && target.command.privileged;
		case "not-read-only-tool":
			return !tool.readOnly && target?.kind !== "command";
		case "sandboxed-command":
			return sandbox?.available === true && target?.kind === "command" && sandboxConfines(target.command, target.outside);
	}
}

/** Mode rules written for `shell` cover any tool whose subject is a command. */
function appliesTo(rule: ModeRule, tool: ToolFacts, target: RuleTarget | undefined): boolean {
	return toolMatches(rule, tool.name) || (rule.tool === "shell" && target?.kind === "command");
}

/** The first mode rule that applies to this call, if any. */
export function matchModeRule(mode: PermissionMode, tool: ToolFacts, target: RuleTarget | undefined, sandbox?: PolicySandbox): ModeRule | undefined {
	return MODE_RULES[mode].find((rule) => appliesTo(rule, tool, target) && conditionHolds(rule.when, tool, target, sandbox));
}

/** The sandbox profile a mode runs shell commands in; full-access chose to run them unconfined. */
export function sandboxProfileFor(mode: PermissionMode, required = false): "read-only" | "workspace-write" | "none" {
	// Required by the host, full-access still writes where it likes inside the workspace, and only there.
	if (mode === "full-access") return required ? "workspace-write" : "none";
	return mode === "workspace-write" ? "workspace-write" : "read-only";
}

/** Modes whose allowed shell calls need a sandbox; without one they are asked instead. */
export function needsSandbox(mode: PermissionMode, required = false): boolean {
	return sandboxProfileFor(mode, required) !== "none";
}
