/**
 * A session's approvals: turns an ask into a typed pending request with a canonical preview, reads
 * the host's answer, grants the one-use lease an approval becomes, persists "always" answers as
 * exact rules for the workspace, and checks the lease again when the call is dispatched.
 */
import { randomUUID } from "node:crypto";
import type { DecisionResult, PermissionRule, PolicyContext } from "../kernel/admission/types.js";
import {
	APPROVAL_RESPONSE_KINDS,
	type ApprovalLease,
	type ApprovalRequest,
	type ApprovalResponse,
	type ApprovalResponseKind,
	type ApprovedRule,
	type LeaseCheck,
	type PersistPreview,
} from "../kernel/approval/approval-types.js";
import { approvedRuleText, exactRulePatterns, toPermissionRule } from "../kernel/approval/approved-rules.js";
import { LeaseBook } from "../kernel/approval/lease-book.js";
import { argumentsDigest, describeTarget, previewDiff, type TargetState } from "../kernel/approval/target-state.js";
import type { EvidenceRecorder } from "../kernel/evidence/evidence-recorder.js";
import type { Store } from "../store/store.js";
import type { ToolDefinition } from "../tools/tool.js";
import { AskBoard, AskRefused } from "./asks/ask-board.js";
import { ANSWER_MEANING, approvalAsk, askAnswerOf } from "./asks/ask-content.js";
import { type Decider, decideToolCall } from "./decide-call.js";
import type { ConfirmCallback } from "./session-options.js";

export interface ApprovalOutcome {
	approved: boolean;
	by: string;
	response?: ApprovalResponseKind;
	/** Granted when approved: the call may run once, as shown. */
	lease?: ApprovalLease;
	/** Rules an "always" answer persisted. */
	ruleIds?: number[];
	/** Why an "always" answer persisted no rule. */
	notPersisted?: string;
}

/** A call as the gate holds it when it asks. */
export interface PendingCall {
	id: string;
	tool: ToolDefinition;
	args: Record<string, unknown>;
	decision: DecisionResult;
}

/** Places approved rules among a policy's host rules: approved denies first, approved allows ahead of configured asks. */
export function withApprovedRules(hostRules: readonly PermissionRule[], approved: readonly PermissionRule[]): PermissionRule[] {
	const of = (rules: readonly PermissionRule[], outcome: PermissionRule["outcome"]) => rules.filter((r) => r.outcome === outcome);
	return [
		...of(approved, "deny"),
		...of(hostRules, "deny"),
		...of(approved, "allow"),
		...of(hostRules, "ask"),
		...of(hostRules, "allow"),
	];
}

/** A host's answer as a response; undefined when it is neither a boolean nor a known response. */
export function readAnswer(answer: unknown): ApprovalResponse | undefined {
	if (answer === true) return { kind: "allow_once" };
	if (answer === false) return { kind: "deny" };
	if (answer === null || typeof answer !== "object") return undefined;
	const { kind, by } = answer as { kind?: unknown; by?: unknown };
	if (!APPROVAL_RESPONSE_KINDS.includes(kind as ApprovalResponseKind)) return undefined;
	const response: ApprovalResponse = { kind: kind as ApprovalResponseKind };
	if (typeof by === "string" && by.trim() !== "") response.by = by.trim();
	return response;
}

export class SessionApprovals {
	private readonly leases: LeaseBook;
	/** What each lease was checked against, so dispatch recomputes the same target the same way. */
	private readonly granted = new Map<string, { call: PendingCall; request: ApprovalRequest }>();

	constructor(
		private readonly recorder: EvidenceRecorder,
		private readonly store: Store,
		private readonly decider: Decider,
		/** The session's policy; persisted rules join its host rules at once. */
		private readonly policy: PolicyContext,
		/** Leases a resumed session's earlier runs consumed: presenting one again is refused as used. */
		spentLeases: Iterable<string> = [],
		/** Where each ask becomes a row any surface may answer; default: this store's, without a timeout. */
		private readonly board: AskBoard = new AskBoard({ rows: store.asks }),
	) {
		this.leases = new LeaseBook(spentLeases);
	}

	/** The pending request the host is shown. */
	async request(call: PendingCall): Promise<ApprovalRequest> {
		const target = await this.target(call);
		const request: ApprovalRequest = {
			requestId: `approval_${randomUUID()}`,
			session: this.recorder.session,
			callId: call.id,
			tool: call.tool.name,
			resource: target.resource,
			arguments: call.args,
			argumentsDigest: argumentsDigest(call.args),
			targetDigest: target.digest,
			decision: call.decision,
		};
		const diff = writePreview(call, target);
		if (diff !== undefined) request.diff = diff;
		request.always = { allow: persistPreview(call, target, "allow"), deny: persistPreview(call, target, "deny") };
		return request;
	}

	/**
	 * The host's confirm callback, made durable: each request becomes a row that the callback and
	 * every other surface (the console, `warden asks answer`) race to answer; the first answer to
	 * land is the one returned. Reached only through `human:host`, so nothing is shown (in this
	 * process or any other) before that admission.
	 */
	throughAsks(confirm: ConfirmCallback): ConfirmCallback {
		return async (request, signal) => {
			const settled = await this.board.ask(
				this.recorder,
				approvalAsk(request),
				async (surfaceSignal) => {
					const response = readAnswer(await confirm(request, surfaceSignal));
					// An answer the host gave in no known form refuses, as it always has.
					return response ? { answer: askAnswerOf(response.kind), by: response.by ?? "host" } : { answer: "deny", by: "host" };
				},
				signal,
			);
			if (settled.settled === "refused") throw new AskRefused(settled.why);
			return { kind: ANSWER_MEANING[settled.answer].response, by: settled.by };
		};
	}

	/** Asks the host (no callback refuses) and acts on the answer. */
	async ask(confirm: ConfirmCallback | undefined, call: PendingCall, signal: AbortSignal): Promise<ApprovalOutcome> {
		if (!confirm) return { approved: false, by: "no host to ask (automation refuses asks)" };
		const request = await this.request(call);
		let answer: unknown;
		try {
			// Through the board, a callback that ignores the signal cannot hold a cancelled turn open:
			// the ask expires at the abort, and its record is written before this returns.
			answer = await confirm({ ...request }, signal);
		} catch (err) {
			return { approved: false, by: signal.aborted ? "turn cancelled" : err instanceof AskRefused ? err.message : `confirmation failed: ${oneLine(err)}` };
		}
		if (signal.aborted) return { approved: false, by: "turn cancelled" };
		const response = readAnswer(answer);
		if (!response) return { approved: false, by: "host refused" };
		const approved = response.kind === "allow_once" || response.kind === "always_allow";
		const outcome: ApprovalOutcome = { approved, by: approved ? "host" : "host refused", response: response.kind };
		if (response.kind === "always_allow" || response.kind === "always_deny") {
			const persisted = await this.persist(call, request, response.kind === "always_allow" ? "allow" : "deny", response.by ?? "host");
			if ("why" in persisted) outcome.notPersisted = persisted.why;
			else outcome.ruleIds = persisted.ids;
		}
		if (approved) {
			outcome.lease = this.leases.grant(request.requestId, {
				session: request.session,
				callId: request.callId,
				tool: request.tool,
				argumentsDigest: request.argumentsDigest,
				targetDigest: request.targetDigest,
			});
			this.granted.set(outcome.lease.id, { call, request });
		}
		return outcome;
	}

	/** The audit record of a granted lease; after permission.confirmed, so the chain reads in order. */
	async recordGrant(lease: ApprovalLease): Promise<void> {
		await this.recorder.audit(
			"approval.granted",
			{
				lease: lease.id,
				request: lease.requestId,
				tool: lease.tool,
				arguments_digest: lease.argumentsDigest,
				target_digest: lease.targetDigest,
			},
			lease.callId,
		);
	}

	/**
	 * Spends the lease for the call about to run, presenting its arguments and its target as they
	 * are now. Recorded either way; a refusal names what changed.
	 */
	async redeem(lease: ApprovalLease, callId: string, tool: ToolDefinition, args: Record<string, unknown>): Promise<LeaseCheck> {
		const held = this.granted.get(lease.id);
		this.granted.delete(lease.id);
		const call: PendingCall = held ? { ...held.call, id: callId, tool, args } : { id: callId, tool, args, decision: { decision: "ask", layer: "tool-default", reason: "" } };
		const target = await this.target(call);
		const check = this.leases.consume(lease.id, {
			session: this.recorder.session,
			callId,
			tool: tool.name,
			argumentsDigest: argumentsDigest(args),
			targetDigest: target.digest,
		});
		if (check.ok) {
			await this.recorder.audit("approval.consumed", { lease: lease.id, tool: tool.name, target_digest: target.digest }, callId);
		} else {
			await this.recorder.audit(
				"approval.invalid",
				{ lease: lease.id, tool: tool.name, reason: check.reason, arguments_digest: argumentsDigest(args), target_digest: target.digest },
				callId,
			);
		}
		return check;
	}

	private target(call: PendingCall): Promise<TargetState> {
		return describeTarget(this.policy.workspace, call.tool.ruleSubject(call.args), call.decision.subcommands);
	}

	/**
	 * Persists exact rules for an "always" answer, only when they would decide this very call that
	 * way: a rule that could not match the next identical call would be a promise not kept.
	 */
	private async persist(
		call: PendingCall,
		request: ApprovalRequest,
		outcome: "allow" | "deny",
		by: string,
	): Promise<{ ids: number[] } | { why: string }> {
		const target = await this.target(call);
		const patterns = exactRulePatterns(target, call.decision, outcome);
		if (!patterns.ok) return { why: patterns.why };
		const candidates = patterns.patterns.map((pattern, i) =>
			toPermissionRule({ id: i + 1, tool: call.tool.name, pattern, outcome, workspace: this.policy.workspace, created_at: "", created_by: by, session: request.session }),
		);
		const trial = await decideToolCall(this.decider, { ...this.policy, hostRules: withApprovedRules(this.policy.hostRules, candidates) }, call.tool, call.args);
		if (trial.decision !== outcome) return { why: `an exact rule would not decide this call (${trial.reason})` };
		const created_at = new Date().toISOString();
		const stored: ApprovedRule[] = [];
		for (const pattern of patterns.patterns) {
			const rule = await this.store.addApprovedRule({
				tool: call.tool.name,
				pattern,
				outcome,
				workspace: this.policy.workspace,
				created_at,
				created_by: by,
				session: request.session,
			});
			stored.push(rule);
			await this.recorder.audit(
				"approval.rule_added",
				{ rule_id: rule.id, tool: rule.tool, pattern: rule.pattern, outcome: rule.outcome, workspace: rule.workspace, created_by: rule.created_by, request: request.requestId },
				call.id,
			);
		}
		this.policy.hostRules = withApprovedRules(this.policy.hostRules, stored.map(toPermissionRule));
		return { ids: stored.map((r) => r.id) };
	}
}

/** What persist() would write for this answer, shown to the person before they give it. */
function persistPreview(call: PendingCall, target: TargetState, outcome: "allow" | "deny"): PersistPreview {
	const patterns = exactRulePatterns(target, call.decision, outcome);
	return patterns.ok ? { rules: patterns.patterns.map((pattern) => approvedRuleText({ tool: call.tool.name, pattern })) } : { why: patterns.why };
}

/** The diff a write_file or edit_file call would make to its target as it is now. */
function writePreview(call: PendingCall, target: TargetState): string | undefined {
	if (target.kind !== "file" || target.content === undefined) return undefined;
	const { args } = call;
	if (call.tool.name === "write_file" && typeof args.content === "string") return previewDiff(target.resource, target.content, args.content);
	if (call.tool.name === "edit_file" && typeof args.old === "string" && typeof args.new === "string" && target.content !== null) {
		const at = target.content.indexOf(args.old);
		if (args.old === "" || at === -1 || target.content.indexOf(args.old, at + 1) !== -1) return undefined;
		return previewDiff(target.resource, target.content, target.content.slice(0, at) + args.new + target.content.slice(at + args.old.length));
	}
	return undefined;
}

function oneLine(err: unknown): string {
	const text = err instanceof Error ? err.message : String(err);
	const line = text.split("\n").find((l) => l.trim() !== "") ?? "";
	return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
