/**
 * One governed turn (the Agentao paper's Algorithm 1): the model proposes, the policy decides,
 * the host confirms, only admitted calls execute, and every step leaves events and audit records.
 */
import type { ToolOutputChannel } from "./live-tool-output.js";
import type { McpRouter } from "../kernel/kernel-mcp.js";
import type { PolicyContext } from "../kernel/admission/types.js";
import type { ApprovalLease } from "../kernel/approval/approval-types.js";
import type { Budget, Reservation } from "../kernel/budget/budget.js";
import { BudgetExhaustedError } from "../kernel/budget/budget-errors.js";
import type { EventPayloads, TurnStatus } from "../kernel/evidence/event-types.js";
import type { EvidenceRecorder } from "../kernel/evidence/evidence-recorder.js";
import type { ParsedShell } from "../kernel/admission/shell/shell-types.js";
import type { EditorFiles } from "../providers/editor-fs-provider.js";
import type { EditorTerminals } from "../providers/editor-terminal-provider.js";
import { llmResource } from "../kernel/authority/resource.js";
import { FlowDeniedError } from "../kernel/flow/flow-errors.js";
import { join, type Label, label } from "../kernel/flow/label.js";
import type { SessionFlow } from "../kernel/flow/session-flow.js";
import type { Authority } from "../kernel/authority/authority.js";
import { CapabilityDeniedError } from "../kernel/authority/authority-errors.js";
import { sandboxProfileFor } from "../kernel/admission/modes.js";
import { createKernel } from "../kernel/kernel.js";
import { createHumanPrimitives, type HumanChannel } from "../kernel/kernel-human.js";
import { planningContext } from "./planning-context.js";
import type { MemoryBinding } from "../kernel/kernel-memory.js";
import { recordToolOutcome } from "./tool-outcomes.js";
import { createLlmPrimitives, modelProfile } from "../kernel/kernel-llm.js";
import { WorkspaceEscapeError } from "../kernel/primitives.js";
import { ProtectedGuard, ProtectedPathDeniedError } from "../kernel/protected/protected-guard.js";
import type { Message, ModelProvider, ModelResponse } from "../models/provider.js";
import { ModelError } from "../models/provider.js";
import { validateArguments } from "../tools/argument-validator.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { ToolDefinition, ToolLimits } from "../tools/tool.js";
import { ToolError } from "../tools/tool.js";
import { crashPoint } from "../store/fault-injection.js";
import { ABORTED, untilAborted } from "./abort-race.js";
import { type Decider, decideToolCall } from "./decide-call.js";
import { type HookNote, withNotes } from "./hooks/hook-notes.js";
import type { SessionHooks } from "./hooks/session-hooks.js";
import { afterToolCall, decideWithHooks } from "./hooks/tool-hooks.js";
import { notifyAsk, stopRequested, submitPrompt } from "./hooks/turn-hooks.js";
import { jitRegistrar } from "./jit-registrar.js";
import { runByKey } from "./keyed-serializer.js";
import type { SessionApprovals } from "./session-approvals.js";
import type { ContextKeeper } from "./context/context-keeper.js";
import type { ConfirmCallback } from "./session-options.js";
import type { TurnSubagents } from "./subagents.js";
import type { SessionSkills } from "./skills/session-skills.js";
import { historyCall, normalizeToolCalls, type ToolProposal } from "./tool-call-normalizer.js";
import { stepDeadline } from "./step-deadline.js";
import {
	budgetExhaustedMessage,
	cancelledMessage,
	deniedMessage,
	failedMessage,
	invalidCallMessage,
	notApprovedMessage,
	staleApprovalMessage,
	truncate,
} from "./tool-messages.js";

export type { Decider };

export interface TurnDeps {
	recorder: EvidenceRecorder;
	model: ModelProvider;
	tools: ToolRegistry;
	decider: Decider;
	policy: PolicyContext;
	confirm: ConfirmCallback | undefined;
	/** Pending requests, leases and persisted answers for this session's asks. */
	approvals: SessionApprovals;
	limits: ToolLimits;
	maxSteps: number;
	/** This turn's budget; its parent is the session's, whose parent is the host's. */
	budget: Budget;
	/** Capabilities and task ceiling: every primitive of every call is admitted against them. */
	authority: Authority;
	/** How long one model call may take before the turn ends as model_error. */
	modelTimeoutMs: number;
	env: NodeJS.ProcessEnv;
	/** This turn's sub-agents: the `agent` tool spawns through it, and the turn waits for background ones before it ends. */
	subagents?: TurnSubagents;
	/** Registers a per-call controller so the host can cancel one call. */
	trackCall(callId: string, controller: AbortController): () => void;
	/** Persists one message of the conversation, with the label it carries in the model's context, through `recorder` (the turn's). */
	remember(message: Message, label: Label, recorder: EvidenceRecorder): Promise<void>;
	/** The session's flow plane: labels of what the model's context holds, sinks, releases. */
	flow: SessionFlow;
	/** The label of each message in `history` (same index), and how many of them the model has been sent. */
	context: ModelContext;
	/** Parses shell commands for the flow plane (files and destinations a command names). */
	parseShell?: (command: string) => ParsedShell;
	/** An editor's buffers: file tools read and write through them (an ACP client's fs). */
	files?: EditorFiles;
	/** An editor's terminals: a sandboxed command may run in one. */
	terminals?: EditorTerminals;
	/** The session's MCP servers, for mcp.call. */
	mcp?: McpRouter;
	/** Counts the context, compacts it before a request would pass the limit, and records each call's manifest. */
	keeper?: ContextKeeper;
	/** Answers ask_user's questions (the person at the terminal); absent, nobody is there to answer. */
	askUser?: HumanChannel<string, string | undefined>;
	/** The session's skills: activate_skill loads one into the call's result, with its label. */
	skills?: SessionSkills;
	/** The session's hooks (src/runtime/hooks/): they run inside this pipeline, for every tool. */
	hooks?: SessionHooks;
	/** The session's memory: the memory primitives act on it, and each call's outcome is recorded in it. */
	memory?: MemoryBinding;
	/** Running commands' output, for the host as it is written. */
	toolOutput?: ToolOutputChannel;
}

export interface ModelContext {
	labels: Label[];
	sent: number;
}

export interface TurnResult {
	status: TurnStatus;
	/** The model's final answer when status is completed. */
	text: string;
	session: string;
	turn: number;
	steps: number;
	/** One line, when status is not completed. */
	error?: string;
	toolCalls: { total: number; completed: number; denied: number; cancelled: number; invalid: number; failed: number };
}

interface Admitted {
	proposal: ToolProposal;
	tool: ToolDefinition;
	args: Record<string, unknown>;
	/** The call's own budget under the turn's: its primitives charge it, and it remembers a refusal. */
	budget: Budget;
	/** The one tool call this call counts as, held since admission. */
	hold: Reservation;
	/** The host approved this call after the tool-level decision asked: `ask` grants admit it. */
	approved: boolean;
	/** A host allow rule admitted it (the host named this call in advance). */
	hostAllowed: boolean;
	/** An approved ask's one-use lease, spent when the call is dispatched. */
	lease?: ApprovalLease;
	/** The protected paths this call was approved or exactly allowed for: the only ones its primitives may write. */
	clears: readonly string[];
	/** What PreToolUse hooks added for the model. */
	notes?: HookNote[];
}

interface CallOutcome {
	id: string;
	name: string;
	content: string;
	/** A reservation for this call did not fit: the turn ends after this step. */
	exhausted?: BudgetExhaustedError;
	/** What the call read, joined: the result carries it into the model's context. Absent: the runtime's own words. */
	label?: Label;
	/** The call ran: whether it failed (PostToolUse or PostToolUseFailure hooks see it). */
	ran?: { error?: string };
	/** What hooks added for the model, after the result. */
	notes?: HookNote[];
}

/** The runtime's own messages (refusals, notices) carry nothing from the world. */
const RUNTIME_WORDS: Label = label("internal", "trusted", { kind: "system", ref: "runtime" });

export async function runTurn(sessionDeps: TurnDeps, history: Message[], input: string, signal: AbortSignal): Promise<TurnResult> {
	// The turn's evidence is written deferred and made durable where something leaves the process:
	// before the model is sent the context, before the host is asked, at an operation's intent and
	// settlement (the kernel's own barriers), and when the turn ends. A read-only call's writes
	// thus commit with the next model request, in one transaction.
	const deps: TurnDeps = { ...sessionDeps, recorder: sessionDeps.recorder.deferring() };
	const { recorder } = deps;
	const turn = recorder.currentTurn;
	const counts = { total: 0, completed: 0, denied: 0, cancelled: 0, invalid: 0, failed: 0 };
	let completed = false;
	const finish = async (status: TurnStatus, steps: number, text: string, error?: string): Promise<TurnResult> => {
		// Background children finish (or are cancelled with the turn) before the turn is reported over.
		await deps.subagents?.settle();
		// Cancelled while waiting for them: the turn did not finish as it was about to report.
		if (status === "completed" && signal.aborted) return finish("cancelled", steps, "", "turn cancelled by the host");
		const payload: EventPayloads["turn.completed"] = { status, steps };
		if (text) payload.text = text;
		if (error) payload.error = error;
		payload.budget = (deps.budget.parent ?? deps.budget).usage();
		await recorder.emit("turn.completed", payload);
		await recorder.durable();
		crashPoint("turn.completed");
		completed = true;
		const result: TurnResult = { status, text, session: recorder.session, turn, steps, toolCalls: counts };
		if (error) result.error = error;
		return result;
	};

	let stepsTaken = 0;
	const modelFlow = deps.flow.model(llmResource(modelProfile(deps.model.spec)));
	// The manifest's digest and the context's size go on the step's llm.complete record.
	let contextRecord: Record<string, unknown> = {};
	// The model is reached only through the kernel: admitted on llm:<profile>, cleared by the flow
	// plane (the context is data leaving for the provider), charged to the turn, recorded.
	const llm = createLlmPrimitives({
		model: deps.model,
		authority: deps.authority.forCall({ approved: false }),
		budget: deps.budget,
		record: async (data) => {
			await recorder.audit("llm.complete", { ...data, ...contextRecord });
		},
		admitFlow: (request) => {
			// Only the messages new to the model: mapping the whole history made every step of a long session dearer.
			const first = Math.max(0, deps.context.sent);
			return modelFlow.admitFresh(
				request.messages.slice(first).map((m, k) => ({
					content: m.content,
					label: deps.context.labels[first + k] ?? deps.flow.contextLabel,
					// A sub-agent's task came from its parent's model: its label (the parent's context) says so.
					host: m.role === "system" || m.role === "user",
				})),
				first,
			);
		},
	});
	let started = false;
	const governed = async (): Promise<TurnResult> => {
		await recorder.emit("turn.started", { input });
		started = true;
		// A sub-agent's input is its parent model's words: it carries the context it started with.
		const prompt = await submitPrompt(deps.hooks, input, join(deps.flow.contextLabel, label("internal", "trusted", { kind: "user", ref: `turn ${turn}` })));
		if ("blocked" in prompt) return finish("cancelled", 0, "", prompt.blocked);
		await pushMessage(deps, history, { role: "user", content: prompt.content }, prompt.label);
		let stopHookActive = false;

		for (let step = 1; step <= deps.maxSteps; step++) {
			if (signal.aborted) return finish("cancelled", step - 1, "", "turn cancelled by the host");
			stepsTaken = step;
			const prepared = deps.keeper ? await deps.keeper.prepare({ ...deps, history, tools: deps.tools.schemas(), signal }, step) : undefined;
			if (prepared && !prepared.ok) return finish(prepared.status, step - 1, "", prepared.error);
			contextRecord = prepared ? { manifest_digest: prepared.digest, context_tokens: prepared.tokens, context_window: prepared.window } : {};
			const deadline = stepDeadline(signal, deps.modelTimeoutMs);
			let response: ModelResponse;
			let sent = false;
			const requested = history.length;
			try {
				response = await llm.complete(
					{ messages: history, tools: deps.tools.schemas(), onRetry: async (retry) => void (await recorder.emit("model.retried", { step, ...retry })) },
					{
						signal: deadline.signal,
						beforeSend: async () => {
							await recorder.emit("model.requested", { step, messages: history.length, tools: deps.tools.list().length });
							// What the provider is sent, and everything before it, is on record (and heard) first.
							await recorder.durable();
							sent = true;
							// From here the provider may hold these messages; they are not new to it again.
							deps.context.sent = requested;
						},
						// A provider that ignores its signal must not hold the turn past a cancel or the deadline.
						wait: async (answer, waitSignal) => {
							const settled = await untilAborted(answer, waitSignal);
							if (settled === ABORTED) throw waitSignal.reason;
							return settled;
						},
					},
				);
			} catch (err) {
				if (!sent) {
					// Refused before anything was sent: the step was never taken.
					if (err instanceof BudgetExhaustedError) {
						await recordExhausted(deps, err);
						return finish("budget_exhausted", step - 1, "", err.message);
					}
					if (err instanceof CapabilityDeniedError) {
						await recorder.audit("authority.denied", err.toRecord());
						return finish("model_error", step - 1, "", err.message);
					}
					// Its flow.decided record is already written.
					if (err instanceof FlowDeniedError) return finish("model_error", step - 1, "", err.message);
					throw err;
				}
				if (signal.aborted) return finish("cancelled", step, "", "turn cancelled by the host");
				if (deadline.expired) return finish("model_error", step, "", `model ${deps.model.spec} did not answer within ${deps.modelTimeoutMs < 1000 ? `${deps.modelTimeoutMs} ms` : `${Math.round(deps.modelTimeoutMs / 1000)} s`}`);
				const message = err instanceof ModelError ? err.message : `model call failed: ${oneLine(err)}`;
				return finish("model_error", step, "", message);
			} finally {
				deadline.dispose();
			}
			const responded: EventPayloads["model.responded"] = {
				step,
				tool_calls: response.toolCalls.length,
			};
			if (response.text) responded.text = response.text;
			if (response.usage) responded.usage = response.usage;
			if (prepared) {
				deps.keeper!.observe(prepared, response.usage);
				responded.context_tokens = response.usage?.prompt_tokens ?? prepared.tokens;
				responded.context_window = prepared.window;
			}
			crashPoint("turn.model-answered");
			await recorder.emit("model.responded", responded);
			// The model's own words go back to the model that wrote them: not new to that sink.
			modelFlow.noteReply(response.text);

			if (response.toolCalls.length === 0) {
				await pushMessage(deps, history, { role: "assistant", content: response.text }, deps.flow.contextLabel);
				const goOn = await stopRequested(deps.hooks, response.text, stopHookActive, RUNTIME_WORDS);
				if (!goOn) return finish("completed", step, response.text);
				stopHookActive = true;
				await pushMessage(deps, history, { role: "user", content: goOn.content }, goOn.label);
				continue;
			}

			const proposals = normalizeToolCalls(response.toolCalls, turn, step);
			await pushMessage(deps, history, {
				role: "assistant",
				content: response.text,
				tool_calls: proposals.map(historyCall),
			}, deps.flow.contextLabel);

			const outcomes = new Map<string, CallOutcome>();
			const admitted: Admitted[] = [];
			for (const proposal of proposals) {
				counts.total++;
				const outcome = await gate(deps, proposal, signal, counts);
				if ("content" in outcome) outcomes.set(proposal.id, outcome);
				else admitted.push(outcome);
			}

			await runByKey(
				admitted,
				(a) => a.tool.name,
				async (a) => {
					const outcome = await execute(deps, a, signal, counts);
					const after = outcome.ran ? await afterToolCall(deps.hooks, { tool: a.tool.name, callId: a.proposal.id, args: a.args, output: outcome.content, signal, ...outcome.ran }) : [];
					outcomes.set(a.proposal.id, { ...outcome, notes: [...(a.notes ?? []), ...after] });
					// A call that settled an operation commits when it ends (calls ending together share the
					// commit); a read's evidence commits with the next model request, before its result leaves.
					await recorder.durableIfSettled();
				},
			);

			crashPoint("turn.tool-result");
			for (const proposal of proposals) {
				const outcome = outcomes.get(proposal.id)!;
				const noted = withNotes(outcome.content, outcome.label ?? RUNTIME_WORDS, outcome.notes ?? []);
				// A result enters the model's context only as far as the model's sink clears it: redacted, or withheld.
				const entered = await modelFlow.enter({ callId: outcome.id, content: noted.content, label: noted.label, signal });
				const answers = proposal.providerId === undefined ? {} : { provider_call_id: proposal.providerId };
				await pushMessage(deps, history, { role: "tool", tool_call_id: outcome.id, ...answers, name: outcome.name, content: entered.content }, entered.label);
			}
			if (signal.aborted) return finish("cancelled", step, "", "turn cancelled by the host");
			const exhausted = proposals.map((p) => outcomes.get(p.id)!.exhausted).find((e) => e !== undefined);
			if (exhausted) return finish("budget_exhausted", step, "", exhausted.message);
		}
		return finish("max_steps", deps.maxSteps, "", `stopped after ${deps.maxSteps} model calls (--max-steps) without a final answer`);

	};
	try {
		return await governed();
	} catch (err) {
		// Evidence must not end with a turn left open: record the failure as the turn's outcome
		// unless the store itself is what failed, in which case the original error stands.
		if (completed || !started) throw err;
		try {
			return await finish("error", stepsTaken, "", `internal error: ${oneLine(err)}`);
		} catch {
			throw err;
		}
	}
}

/** Validation, decision and confirmation for one proposal: either admitted, or a result message. */
async function gate(
	deps: TurnDeps,
	proposal: ToolProposal,
	signal: AbortSignal,
	counts: TurnResult["toolCalls"],
): Promise<Admitted | CallOutcome> {
	const { recorder } = deps;
	const { id, name } = proposal;
	await recorder.emit("tool.proposed", { call_id: id, tool: name, arguments: proposal.args ?? proposal.rawArguments });
	const invalid = async (error: string): Promise<CallOutcome> => {
		counts.invalid++;
		await recorder.emit("tool.invalid", { call_id: id, tool: name, error });
		await recorder.audit("tool.invalid", { tool: name, error, arguments: proposal.rawArguments }, id);
		return { id, name, content: invalidCallMessage(name, error) };
	};

	const tool = deps.tools.get(name);
	if (!tool) return invalid(`unknown tool "${name}"; available: ${deps.tools.list().map((t) => t.name).join(", ")}`);
	if (proposal.decodeError) return invalid(proposal.decodeError);
	const validated = validateArguments(tool, proposal.args);
	if (!validated.ok) return invalid(validated.error);
	// Hooks run inside the decision: what they rewrite is validated and decided again.
	const hooked = await decideWithHooks(deps.hooks, {
		tool: name,
		callId: id,
		args: validated.value as Record<string, unknown>,
		decide: (a) => decideToolCall(deps.decider, deps.policy, tool, a),
		signal,
		validate: (raw) => {
			const checked = validateArguments(tool, raw);
			return checked.ok ? { ok: true, value: checked.value as Record<string, unknown> } : checked;
		},
	});
	const { decision, args, notes } = hooked;
	const decided: EventPayloads["permission.decided"] = {
		call_id: id,
		tool: name,
		decision: decision.decision,
		layer: decision.layer,
		reason: decision.reason,
	};
	if (decision.rule) decided.rule = decision.rule;
	if (decision.subcommands) decided.subcommands = decision.subcommands;
	if (decision.protected) decided.protected = decision.protected;
	decided.ceiling = deps.authority.ceiling.hash;
	await recorder.emit("permission.decided", decided);
	await recorder.audit("permission.decided", { ...decided, arguments: args, mode: deps.policy.mode }, id);

	if (decision.decision === "deny") {
		counts.denied++;
		await recorder.emit("tool.denied", { call_id: id, tool: name, reason: decision.reason });
		await recorder.audit("tool.outcome", { tool: name, outcome: "denied", reason: decision.reason }, id);
		return { id, name, content: deniedMessage(name, decision.reason), notes };
	}
	let lease: ApprovalLease | undefined;
	if (decision.decision === "ask") {
		// The host is reached only through the kernel: a refused `human:host` leaves the ask unanswered, so not approved.
		const askAuthority = deps.authority.forCall({ approved: false });
		const confirm = deps.confirm && createHumanPrimitives({ channel: "host", answer: deps.approvals.throughAsks(deps.confirm), authority: askAuthority }).ask;
		await notifyAsk(deps.hooks, name, id);
		// The host hears what led to the ask before it is asked.
		await recorder.durable();
		const approval = await deps.approvals.ask(confirm, { id, tool, args, decision }, signal);
		for (const refused of askAuthority.refusals) await recorder.audit("authority.denied", refused.toRecord(), id);
		const confirmed: EventPayloads["permission.confirmed"] = { call_id: id, tool: name, approved: approval.approved, by: approval.by };
		if (approval.response) confirmed.response = approval.response;
		if (approval.lease) confirmed.lease = approval.lease.id;
		if (approval.ruleIds) confirmed.rule_ids = approval.ruleIds;
		await recorder.emit("permission.confirmed", confirmed);
		const { call_id: _, ...confirmedRecord } = confirmed;
		await recorder.audit(
			"permission.confirmed",
			approval.notPersisted ? { ...confirmedRecord, rule_not_persisted: approval.notPersisted } : confirmedRecord,
			id,
		);
		if (approval.lease) {
			lease = approval.lease;
			await deps.approvals.recordGrant(lease);
		}
		if (!approval.approved) {
			counts.cancelled++;
			const reason = signal.aborted ? "turn cancelled while waiting for approval" : `not approved (${approval.by})`;
			await recorder.emit("tool.cancelled", { call_id: id, tool: name, reason });
			await recorder.audit("tool.outcome", { tool: name, outcome: "cancelled", reason }, id);
			return { id, name, content: notApprovedMessage(name), notes };
		}
	}
	if (signal.aborted) return cancelBeforeStart(deps, id, name, counts);
	// Reserved in proposal order, before anything of this step runs, so which calls fit is deterministic.
	const budget = deps.budget.child("call");
	let hold: Reservation;
	try {
		hold = budget.reserve("tool_calls", 1);
	} catch (err) {
		if (!(err instanceof BudgetExhaustedError)) throw err;
		counts.cancelled++;
		await recordExhausted(deps, err, id);
		await recorder.emit("tool.cancelled", { call_id: id, tool: name, reason: err.message });
		await recorder.audit("tool.outcome", { tool: name, outcome: "cancelled", reason: err.message }, id);
		return { id, name, content: budgetExhaustedMessage(name, err.message), exhausted: err };
	}
	// Reaching here after an ask means the host approved it.
	const admitted: Admitted = { proposal, tool, args, budget, hold, approved: decision.decision === "ask", hostAllowed: decision.decision === "allow" && decision.layer === "host-rule", clears: decision.protected?.clears ?? [], notes };
	if (lease) admitted.lease = lease;
	return admitted;
}

/** The `budget.exhausted` event and its audit record; `callId` when the refused work belonged to a call. */
async function recordExhausted(deps: TurnDeps, err: BudgetExhaustedError, callId?: string): Promise<void> {
	const payload: EventPayloads["budget.exhausted"] = err.toRecord();
	if (callId !== undefined) payload.call_id = callId;
	await deps.recorder.emit("budget.exhausted", payload);
	await deps.recorder.audit("budget.exhausted", err.toRecord(), callId);
}

async function cancelBeforeStart(deps: TurnDeps, id: string, name: string, counts: TurnResult["toolCalls"]): Promise<CallOutcome> {
	counts.cancelled++;
	await deps.recorder.emit("tool.cancelled", { call_id: id, tool: name, reason: "turn cancelled before the call started" });
	await deps.recorder.audit("tool.outcome", { tool: name, outcome: "cancelled", reason: "turn cancelled before start" }, id);
	return { id, name, content: cancelledMessage(name) };
}

async function execute(deps: TurnDeps, call: Admitted, turnSignal: AbortSignal, counts: TurnResult["toolCalls"]): Promise<CallOutcome> {
	const { recorder } = deps;
	const { id } = call.proposal;
	const name = call.tool.name;
	// Queued behind another call to the same tool when the turn was cancelled: it never starts.
	if (turnSignal.aborted) {
		call.hold.release();
		return cancelBeforeStart(deps, id, name, counts);
	}
	// Right before dispatch: an approval covers the call as it was shown, on the target as it was then.
	if (call.lease) {
		const check = await deps.approvals.redeem(call.lease, id, call.tool, call.args);
		if (!check.ok) {
			call.hold.release();
			counts.cancelled++;
			await recorder.emit("tool.cancelled", { call_id: id, tool: name, reason: check.reason });
			await recorder.audit("tool.outcome", { tool: name, outcome: "cancelled", reason: check.reason }, id);
			return { id, name, content: staleApprovalMessage(name, check.reason) };
		}
	}
	const controller = new AbortController();
	const onTurnAbort = () => controller.abort(turnSignal.reason);
	turnSignal.addEventListener("abort", onTurnAbort, { once: true });
	const untrack = deps.trackCall(id, controller);
	const started = Date.now();
	try {
		await recorder.emit("tool.started", { call_id: id, tool: name });
		const authority = deps.authority.forCall({ approved: call.approved });
		const flow = deps.flow.forCall(id, controller.signal);
		// Only what this call's approval or exact host rule named: a JIT tool's syscalls get nothing more.
		const protect = new ProtectedGuard({ ...(deps.policy.protectedPaths ? { registry: deps.policy.protectedPaths } : {}), clearance: call.clears });
		const kernel = createKernel({
			workspace: deps.policy.workspace,
			// Resolved once when the session opened (session-policy.ts): not again per call.
			root: { given: deps.policy.workspace, real: deps.policy.workspace },
			callId: id,
			signal: controller.signal,
			recordEffect: (effect) => recorder.effect(effect),
			env: deps.env,
			budget: call.budget,
			authority,
			flow,
			operations: recorder.operationLog(),
			...(call.lease ? { lease: call.lease.id } : {}),
			...(deps.parseShell ? { parseShell: deps.parseShell } : {}),
			...(deps.files ? { files: deps.files } : {}),
			...(deps.terminals ? { terminals: deps.terminals } : {}),
			// The mode's sandbox profile; without a working sandbox only an approved call runs.
			sandbox: { profile: sandboxProfileFor(deps.policy.mode, deps.policy.sandbox?.required), available: deps.policy.sandbox?.available ?? false, reason: deps.policy.sandbox?.reason, home: deps.policy.home, protect: deps.policy.sandbox?.protect, provider: deps.policy.sandbox?.provider, protectedPaths: deps.policy.protectedPaths },
			approved: call.approved,
			hostAllowed: call.hostAllowed,
			protect,
			// A JIT tool's syscalls and limits, as events and audit records under this call.
			jitEvidence: {
				syscall: async (record) => {
					await recorder.emit("tool.syscall", record);
					const { call_id: _, ...data } = record;
					await recorder.audit("jit.syscall", data, id);
				},
				limit: async (record) => {
					const { call_id: _, ...data } = record;
					await recorder.audit("jit.limit", data, id);
				},
			},
			shellMaxTimeoutMs: deps.limits.shellMaxTimeoutMs,
			shellMaxOutputBytes: deps.limits.shellMaxOutputBytes,
			...(deps.mcp ? { mcp: deps.mcp } : {}),
			...(deps.memory ? { memory: deps.memory } : {}),
			...(deps.toolOutput ? { shellOutput: deps.toolOutput.forCall(id, name) } : {}),
		});
		let output: string;
		let failure: string | undefined;
		let cut = false;
		try {
			const subagents = deps.subagents?.forCall(id, call.budget, controller.signal, flow);
			const jit = jitRegistrar(deps.tools, recorder, id);
			const planning = planningContext(deps, authority);
			const result = await call.tool.execute(call.args, { kernel, callId: id, signal: controller.signal, limits: deps.limits, jit, ...planning, ...(subagents ? { subagents } : {}), ...(deps.skills ? { skills: deps.skills.forCall(id, flow) } : {}) });
			output = result.output;
			cut = result.truncated === true;
			if (result.isError) failure = firstLine(result.output);
		} catch (err) {
			const known =
				err instanceof ToolError || err instanceof WorkspaceEscapeError || err instanceof BudgetExhaustedError || err instanceof CapabilityDeniedError || err instanceof FlowDeniedError || err instanceof ProtectedPathDeniedError;
			failure = known ? oneLine(err) : `internal error: ${oneLine(err)}`;
			output = failedMessage(name, failure);
		}
		const durationMs = Date.now() - started;
		// A primitive refused inside the call: whatever the tool made of that, the call did not do all it was asked.
		// Likewise a capability refusal: it is evidence of its own, linked to the call, and the call failed.
		for (const refused of authority.refusals) await recorder.audit("authority.denied", refused.toRecord(), id);
		for (const refused of protect.refusals) await recorder.audit("protected.denied", refused.toRecord(), id);
		// Counted-grant uses no intent carried (a read's): recorded with the call, so a resumed session counts them spent too.
		const uncarried = authority.takeUses();
		if (uncarried.length > 0) await recorder.audit("authority.used", { grants: uncarried }, id);
		const refused = protect.refusals[0] ?? authority.refusals[0] ?? flow.refusals[0];
		if (refused && failure === undefined) {
			failure = refused.message;
			output = `${output}\n${failedMessage(name, failure)}`;
		}
		const exhausted = call.budget.refusal;
		if (exhausted) {
			await recordExhausted(deps, exhausted, id);
			if (failure === undefined) {
				failure = exhausted.message;
				output = `${output}\n${failedMessage(name, failure)}`;
			}
		}
		if (controller.signal.aborted) {
			counts.cancelled++;
			await recorder.emit("tool.cancelled", { call_id: id, tool: name, reason: "cancelled by the host while running" });
			await recorder.audit("tool.outcome", { tool: name, outcome: "cancelled", duration_ms: durationMs }, id);
			return { id, name, content: `${cancelledMessage(name)}\n${truncate(output, deps.limits.maxResultChars).text}`, exhausted, label: flow.resultLabel };
		}
		const shown = truncate(output, deps.limits.maxResultChars);
		if (failure !== undefined) {
			counts.failed++;
			await recorder.emit("tool.failed", { call_id: id, tool: name, duration_ms: durationMs, error: failure });
			await recorder.audit("tool.outcome", { tool: name, outcome: "failed", error: failure, duration_ms: durationMs }, id);
		} else {
			counts.completed++;
			await recorder.emit("tool.completed", {
				call_id: id,
				tool: name,
				duration_ms: durationMs,
				output_bytes: Buffer.byteLength(output),
				// Cut by the tool (an MCP result over the read limit) or here, to what the model is given.
				truncated: shown.truncated || cut,
			});
			await recorder.audit("tool.outcome", { tool: name, outcome: "completed", duration_ms: durationMs, output_bytes: Buffer.byteLength(output) }, id);
		}
		await recordToolOutcome(deps.memory, deps.flow, { callId: id, tool: name, args: call.args, outcome: failure === undefined ? "completed" : "failed", output: failure ?? output, durationMs, label: join(flow.argumentsLabel, flow.resultLabel), read: flow.resultLabel }, recorder.deferredWrites);
		return { id, name, content: shown.text, exhausted, label: flow.resultLabel, ran: failure === undefined ? {} : { error: failure } };
	} finally {
		// The call started, so it counts, however it ended.
		call.hold.settle(1);
		untrack();
		turnSignal.removeEventListener("abort", onTurnAbort);
	}
}

async function pushMessage(deps: TurnDeps, history: Message[], message: Message, carries: Label): Promise<void> {
	history.push(message);
	deps.context.labels[history.length - 1] = carries;
	deps.flow.joinContext(carries);
	await deps.remember(message, carries, deps.recorder);
}

function oneLine(err: unknown): string {
	const text = err instanceof Error ? err.message : String(err);
	return firstLine(text);
}

function firstLine(text: string): string {
	const line = text.split("\n").find((l) => l.trim() !== "") ?? "";
	return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
