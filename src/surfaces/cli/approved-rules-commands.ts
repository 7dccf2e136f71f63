/**
 * `warden policy list|revoke`: the "always allow" and "always deny" answers persisted as exact
 * rules, each with its id and source, and their revocation (kept and audited, never deleted).
 */
import type { Command } from "commander";
import type { ApprovedRule } from "../../kernel/approval/approval-types.js";
import type { Runtime } from "../../runtime/runtime.js";
import { EXIT, UsageError } from "./cli-error.js";
import { shownLines } from "./shown-lines.js";

interface ListFlags {
	stateDir?: string;
	workspace?: string;
	all?: boolean;
	json?: boolean;
}

/** `readOnly` for listing: it takes no process lease and never blocks the runs that write. */
async function withRuntime<T>(stateDir: string | undefined, body: (runtime: Runtime) => Promise<T>, readOnly = false): Promise<T> {
	// Loaded here, not at start: `warden --version` and `--help` never load the runtime.
	const { Runtime } = await import("../../runtime/runtime.js");
	const runtime = await Runtime.open({ ...(stateDir ? { stateDir } : {}), readOnly });
	try {
		return await body(runtime);
	} finally {
		await runtime.close();
	}
}

type RuleText = Pick<typeof import("../../kernel/approval/approved-rules.js"), "approvedRuleSource" | "approvedRuleText">;

const ruleText = (): Promise<RuleText> => import("../../kernel/approval/approved-rules.js");

function ruleJson({ approvedRuleSource, approvedRuleText }: RuleText, rule: ApprovedRule): Record<string, unknown> {
	return { ...rule, rule: approvedRuleText(rule), source: approvedRuleSource(rule.id) };
}

function ruleLine({ approvedRuleText }: RuleText, rule: ApprovedRule): string {
	const revoked = rule.revoked_at ? `  REVOKED ${rule.revoked_at} by ${rule.revoked_by ?? "?"}` : "";
	return `#${rule.id}  ${rule.outcome.padEnd(5)}  ${approvedRuleText(rule)}  workspace ${rule.workspace}  by ${rule.created_by}  ${rule.created_at}${revoked}`;
}

export function registerApprovedRuleCommands(policy: Command, out: (text: string) => void): void {
	policy
		.command("list")
		.description('the "always allow" / "always deny" answers persisted as exact rules, with their ids (source "approved rule #<id>")')
		.option("--state-dir <dir>", "state directory (default $WARDEN_HOME)")
		.option("--workspace <dir>", "only the rules of this workspace")
		.option("--all", "include revoked rules")
		.option("--json", "one rule per line as JSON")
		.action(async (flags: ListFlags) => {
			const rules = await withRuntime(flags.stateDir, (rt) =>
				rt.listApprovedRules({ ...(flags.workspace ? { workspace: flags.workspace } : {}), includeRevoked: flags.all === true }),
				true,
			);
			const text = await ruleText();
			for (const rule of rules) out(flags.json ? `${JSON.stringify(ruleJson(text, rule))}\n` : shownLines([ruleLine(text, rule)]));
			if (!flags.json && rules.length === 0) out(shownLines(["no approved rules"]));
			process.exitCode = EXIT.ok;
		});
	policy
		.command("revoke")
		.description("revoke an approved rule: it is kept, marked revoked and audited, and sessions started afterwards no longer load it")
		.argument("<id>", "the rule's id, as `warden policy list` shows it (#<id>)")
		.option("--state-dir <dir>", "state directory (default $WARDEN_HOME)")
		.option("--json", "print the revoked rule as JSON")
		.action(async (id: string, flags: { stateDir?: string; json?: boolean }) => {
			const n = Number(id.replace(/^#/, ""));
			if (!Number.isInteger(n) || n < 1) throw new UsageError(`<id> must be a rule id such as 3, got "${id}"`);
			const rule = await withRuntime(flags.stateDir, (rt) => rt.revokeApprovedRule(n, "cli"));
			const text = await ruleText();
			out(flags.json ? `${JSON.stringify(ruleJson(text, rule))}\n` : shownLines([`revoked approved rule #${rule.id}: ${rule.outcome} ${text.approvedRuleText(rule)} in ${rule.workspace}`]));
			process.exitCode = EXIT.ok;
		});
}
