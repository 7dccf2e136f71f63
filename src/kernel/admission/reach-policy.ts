/**
 * How each mode decides what a shell command visibly tries beyond the workspace (command-reach.ts),
 * as a table. The decision is made on the text, before the command runs, so the model hears
 * "denied: writes ~/.bashrc (outside the workspace)" rather than a confusing EROFS from the
 * sandbox, and so the decision is right where no sandbox runs at all (full-access, a machine
 * without bubblewrap).
 *
 * Why these cells:
 * - read-only and plan deny all of it: they write nothing and run nothing beyond reading.
 * - workspace-write writes only inside the workspace. A write outside (or one that persists) is
 *   denied, not asked: its sandbox would refuse the write even after a yes, so asking would only
 *   turn a clear refusal into a confusing failure. A protected path, fetched code, signals and
 *   schedules are asked about, with the reason: a human may well want `npx -y create-x`, and the
 *   approved call then gets what it asked for (the network for its egress, say).
 * - full-access is the user's choice to let commands write where the user can, so an ordinary
 *   write outside stays allowed, and so does fetched code (the flow plane still decides where data
 *   goes). What it asks about is what outlives the session and runs later outside every sandbox:
 *   persistence (shell rc and profile files, git's global config of keys that name programs, user
 *   units, autostart, crontab and at jobs, services), protected paths, and processes the command
 *   did not start (it may not kill what the user is running).
 * - A target only known at run time (`> "$F"`) could be any of these. Where the sandbox confines
 *   the command, its writes stay in the workspace and off the protected roots whatever `$F` turns
 *   out to be, so nothing is decided here; in workspace-write without one it is asked about. In
 *   full-access it is allowed: that mode already runs code whose writes no text shows (`python3 -c`,
 *   a workspace script), so asking about `rm -f "$tmp"` would add prompts without closing anything;
 *   a host that needs protected paths kept under code it cannot read requires the sandbox there.
 * - Protected paths are never allowed in any mode (see protected-paths.ts); an approval prompt shows
 *   the registry's reason.
 */
import type { Reach, ReachKind } from "./command-reach.js";
import type { Decision, DecisionLayer, PermissionMode } from "./types.js";

export const REACH_DECISIONS: Readonly<Record<ReachKind, Readonly<Record<PermissionMode, Decision>>>> = {
	"protected-write": { "read-only": "deny", plan: "deny", "workspace-write": "ask", "full-access": "ask" },
	"outside-write": { "read-only": "deny", plan: "deny", "workspace-write": "deny", "full-access": "allow" },
	persistence: { "read-only": "deny", plan: "deny", "workspace-write": "deny", "full-access": "ask" },
	"unknown-write": { "read-only": "deny", plan: "deny", "workspace-write": "ask", "full-access": "allow" },
	"fetch-and-run": { "read-only": "deny", plan: "deny", "workspace-write": "ask", "full-access": "allow" },
	signal: { "read-only": "deny", plan: "deny", "workspace-write": "ask", "full-access": "ask" },
	schedule: { "read-only": "deny", plan: "deny", "workspace-write": "ask", "full-access": "ask" },
};

/** How a kind is named in the rule text of a decision, `shell(<writes outside the workspace>)`. */
export const REACH_RULE_TEXT: Readonly<Record<ReachKind, string>> = {
	"protected-write": "shell(<writes a protected path>)",
	"outside-write": "shell(<writes outside the workspace>)",
	persistence: "shell(<writes what runs later outside the workspace>)",
	"unknown-write": "shell(<writes a file only known at run time>)",
	"fetch-and-run": "shell(<fetches code and runs it>)",
	signal: "shell(<signals processes it did not start>)",
	schedule: "shell(<schedules jobs or controls services>)",
};

const SEVERITY: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

export interface ReachDecision {
	decision: Decision;
	reason: string;
	rule: string;
}

/**
 * The most severe decision the mode makes on these facts, or undefined when it allows them all.
 * `confined`: the sandbox confines this command's writes, so a target only known at run time is
 * left to it.
 */
export function decideReach(reaches: readonly Reach[], mode: PermissionMode, confined: boolean): ReachDecision | undefined {
	let worst: ReachDecision | undefined;
	for (const r of reaches) {
		if (r.kind === "unknown-write" && confined) continue;
		const decision = REACH_DECISIONS[r.kind][mode];
		if (decision === "allow" || (worst && SEVERITY[worst.decision] >= SEVERITY[decision])) continue;
		worst = { decision, reason: `${mode} mode: ${r.what} (${r.why})`, rule: REACH_RULE_TEXT[r.kind] };
	}
	return worst;
}

interface StepLike {
	decision: Decision;
	layer: DecisionLayer;
	reason: string;
	rule?: string;
}

/** Layers whose answer is the mode's general one: an equally severe reach decision says more. */
const GENERAL_LAYERS: ReadonlySet<DecisionLayer> = new Set(["read-only-mode", "mode-rule", "tool-default"]);

/**
 * The chain's step for a sub-command, made at least as severe as what the mode decides on its
 * reach. Only a hardline denial stands whatever: no rule may allow what the command visibly tries.
 */
export function withReach<S extends StepLike>(step: S, reach: ReachDecision | undefined): S {
	if (!reach || step.layer === "hardline") return step;
	const more = SEVERITY[reach.decision] > SEVERITY[step.decision];
	const sameButSays = SEVERITY[reach.decision] === SEVERITY[step.decision] && GENERAL_LAYERS.has(step.layer);
	if (!more && !sameButSays) return step;
	return { ...step, decision: reach.decision, layer: "mode-rule", reason: reach.reason, rule: reach.rule };
}
