/**
 * Re-runs a replay file: the recorded model responses (a ReplayModel) against a copy of the starting
 * workspace, under the recorded options, in a fresh state dir; then compares the new decisions and
 * effects with the recorded ones. Tools run for real in the copy, shell commands included: that is
 * what makes a replay a regression test.
 */
import type { ApprovalAnswer } from "../../kernel/approval/approval-types.js";
import type { GrantSpec } from "../../kernel/authority/capability.js";
import type { TaskCeilingSpec } from "../../kernel/authority/task-ceiling.js";
import type { FlowSettings } from "../../kernel/flow/flow-types.js";
import { ReplayModel } from "../../models/replay-model.js";
import { Runtime } from "../runtime.js";
import type { RuleSet, SourcedRule } from "../session-options.js";
import { type ReplayMismatch, compareEvidence } from "./replay-compare.js";
import { auditItems } from "./replay-evidence.js";
import type { DecisionItem, EffectItem, Replay, ReplayRule } from "./replay-format.js";
import { readReplay, replayFiles } from "./replay-reader.js";
import { type ReplayDisk, restoreStart } from "./replay-workspace.js";

export type { ReplayDisk } from "./replay-workspace.js";
export type { ReplayMismatch } from "./replay-compare.js";

export interface ReplayOptions {
	disk: ReplayDisk;
	/** The directory to start from (copied, never changed); default the workspace the session recorded. */
	workspace?: string;
	env?: NodeJS.ProcessEnv;
	/** Keeps the workspace copy and the state dir (their paths are in the report). */
	keep?: boolean;
	/**
	 * Records the replayed session in this state directory, which is the caller's and is kept (its
	 * path is in the report), so `explain` can show why a replay differed. Default: a fresh
	 * temporary one.
	 */
	stateDir?: string;
}

export interface ReplayReport {
	/** Every recorded decision and effect happened again, the same, and every model response was used. */
	match: boolean;
	/** The recorded session, and the session the replay ran as. */
	session: string;
	replay_session: string;
	decisions: number;
	effects: number;
	mismatches: ReplayMismatch[];
	/** How the starting workspace differs from the recorded start, one line per file. */
	notes: string[];
	turns: { turn: number; status: string; error?: string }[];
	/** Present when kept. */
	workspace_copy?: string;
	state_dir?: string;
}

/** Reads and checks `text` (a ReplayError for a tampered, truncated or unknown-version file), then replays it. */
export async function replay(text: string, options: ReplayOptions): Promise<ReplayReport> {
	return replayParsed(readReplay(text), options);
}

export async function replayParsed(parsed: Replay, options: ReplayOptions): Promise<ReplayReport> {
	const { header } = parsed;
	const { disk } = options;
	const copy = await disk.copyDirectory(options.workspace ?? header.workspace);
	let stateDir: string | undefined;
	try {
		const notes = await restoreStart(disk, copy, replayFiles(parsed).map((f) => f.item));
		stateDir = options.stateDir ?? (await disk.temporaryDirectory());
		const report = await run(parsed, copy, stateDir, options);
		report.notes = notes;
		if (options.keep) report.workspace_copy = copy;
		if (options.keep || options.stateDir !== undefined) report.state_dir = stateDir;
		return report;
	} finally {
		if (!options.keep) {
			await disk.removeDirectory(copy);
			if (stateDir !== undefined && options.stateDir === undefined) await disk.removeDirectory(stateDir);
		}
	}
}

async function run(parsed: Replay, workspace: string, stateDir: string, options: ReplayOptions): Promise<ReplayReport> {
	const { header, items } = parsed;
	const opts = header.options;
	const inputs = items.flatMap((e) => (e.item.type === "input" ? [e.item] : []));
	const model = new ReplayModel(
		header.model,
		items.flatMap((e) => (e.item.type === "model" ? [{ turn: e.item.turn, step: e.item.step, response: e.item.response }] : [])),
	);
	const recorded = items.filter((e): e is { line: number; item: DecisionItem | EffectItem } => e.item.type === "decision" || e.item.type === "effect");
	// An ask is answered as the recording says it was; a call the recording has no answer for is refused.
	const answers = new Map<string, ApprovalAnswer>();
	for (const { item } of recorded) {
		if (item.type !== "decision" || !item.approval) continue;
		const kind = item.approval.response;
		answers.set(item.call, kind === "allow_once" || kind === "always_allow" || kind === "always_deny" || kind === "deny" ? { kind } : item.approval.approved);
	}

	const runtime = await Runtime.open({ stateDir, env: options.env ?? process.env, ...(opts.budget?.host ? { budget: opts.budget.host } : {}) });
	const turns: ReplayReport["turns"] = [];
	let replaySession = "";
	try {
		const flow: FlowSettings = {};
		if (opts.flow_sinks) flow.sinks = opts.flow_sinks as unknown as FlowSettings["sinks"];
		if (opts.secret_files) flow.secret_files = opts.secret_files;
		const session = await runtime.openSession({
			workspace,
			model,
			mode: header.mode as never,
			rules: ruleSet(opts.rules),
			runDeny: opts.run_deny.map((rule) => ({ rule, source: "run" })),
			confirm: async (request) => answers.get(request.callId) ?? false,
			...(opts.grants ? { grants: opts.grants as unknown as GrantSpec[] } : {}),
			...(opts.ceiling ? { ceiling: opts.ceiling as TaskCeilingSpec } : {}),
			...(opts.budget?.session ? { budget: opts.budget.session } : {}),
			...(opts.budget?.turn ? { turnBudget: opts.budget.turn } : {}),
			...(opts.max_steps ? { maxSteps: opts.max_steps } : {}),
			...(opts.system_prompt !== undefined ? { systemPrompt: opts.system_prompt } : {}),
			flow,
		});
		replaySession = session.id;
		for (const item of inputs) {
			model.beginTurn(item.turn);
			const result = await session.send(item.text);
			turns.push({ turn: item.turn, status: result.status, ...(result.error ? { error: result.error } : {}) });
		}
		await session.end();
		const replayed = auditItems(await runtime.listAudit({ session: session.id }));
		const mismatches = compareEvidence(recorded, replayed);
		for (const item of inputs) {
			const ran = turns.find((x) => x.turn === item.turn);
			if (item.status !== undefined && ran && ran.status !== item.status) {
				mismatches.push({ what: `turn ${item.turn} ended ${ran.status}${ran.error ? ` (${ran.error})` : ""}, the recording ended ${item.status}`, recorded: item.status, replayed: ran.status });
			}
			const use = model.usage(item.turn);
			if (use.used !== use.recorded) mismatches.push({ what: `turn ${item.turn} used ${use.used} of its ${use.recorded} recorded model response(s)` });
		}
		return {
			match: mismatches.length === 0,
			session: header.session,
			replay_session: replaySession,
			decisions: recorded.filter((r) => r.item.type === "decision").length,
			effects: recorded.filter((r) => r.item.type === "effect").length,
			mismatches,
			notes: [],
			turns,
		};
	} finally {
		await runtime.close();
	}
}

/** Rules as the recording lists them, each with its own source, grouped by outcome as a RuleSet is. */
function ruleSet(rules: readonly ReplayRule[]): RuleSet {
	const pick = (outcome: ReplayRule["outcome"]): SourcedRule[] => rules.filter((r) => r.outcome === outcome).map((r) => ({ rule: r.rule, source: r.source }));
	return { allow: pick("allow"), ask: pick("ask"), deny: pick("deny") };
}
