/**
 * Sub-agents: an `agent` call opens a child session in the same workspace, with a subset of the
 * parent's tools, a mode no more permissive than the parent's, the parent's rules and ceiling,
 * capabilities delegated from the parent's, and a budget charged to the parent's call. The child's
 * own events are in its own session; the parent's stream records its lineage.
 */
import type { McpRouter } from "../kernel/kernel-mcp.js";
import type { PermissionMode, PolicyContext } from "../kernel/admission/types.js";
import type { Authority } from "../kernel/authority/authority.js";
import { DelegationError } from "../kernel/authority/authority-errors.js";
import type { Capability } from "../kernel/authority/capability.js";
import type { Budget } from "../kernel/budget/budget.js";
import type { EvidenceRecorder } from "../kernel/evidence/evidence-recorder.js";
import type { CallFlow } from "../kernel/flow/flow-types.js";
import type { Label } from "../kernel/flow/label.js";
import type { ModelProvider } from "../models/provider.js";
import { ScriptedModel } from "../models/scripted.js";
import { ToolRegistry } from "../tools/registry.js";
import type { SubagentOutcome, SubagentRequest, SubagentSpawner } from "../tools/subagent-types.js";
import { type ToolLimits, ToolError } from "../tools/tool.js";
import { childGrants, isMorePermissive } from "./child-authority.js";
import type { Session } from "./session.js";
import type { FlowSetup } from "./session-flow-setup.js";
import type { ConfirmCallback } from "./session-options.js";
import type { Decider, TurnResult } from "./turn-loop.js";
import type { SessionHooks } from "./hooks/session-hooks.js";
import { subagentStart } from "./hooks/subagent-hooks.js";

/** How deep sub-agents may nest: a session's children are depth 1, their children depth 2. */
export const MAX_SUBAGENT_DEPTH = 2;

/** What a child inherits from the session that spawns it. */
export interface ParentFacts {
	recorder: EvidenceRecorder;
	depth: number;
	policy: PolicyContext;
	authority: Authority;
	tools: ToolRegistry;
	model: ModelProvider;
	confirm: ConfirmCallback | undefined;
	limits: ToolLimits;
	maxSteps: number;
	modelTimeoutMs: number;
	/** Sink registry, settings and release channel: a child is under the same flow plane as its parent. */
	flowSetup: FlowSetup;
	/** The session's MCP servers: a child's mcp.call reaches the same connections, under its own authority. */
	mcp?: McpRouter | undefined;
	/** The session's hooks: a child's calls go through them too (its runs recorded in its own stream). */
	hooks?: SessionHooks | undefined;
	/** A decider narrower than the engine (the parent's active skills' allowed-tools): the child decides through it too. */
	decider?: Decider | undefined;
}

/** Everything a child session is opened with, already checked against its parent. */
export interface ChildSpec {
	parent: ParentFacts;
	callId: string;
	depth: number;
	mode: PermissionMode;
	tools: ToolRegistry;
	grants: Capability[];
	model: ModelProvider;
	/** A child of the parent's call budget: all the child spends is charged up the chain. */
	budget: Budget;
	/** The child's task came from the parent's model context: its context starts with that label. */
	initialContext: Label;
}

export type OpenChild = (spec: ChildSpec) => Promise<Session>;

/** One session's ability to spawn children; each turn gets its own set of running children. */
export class SubagentLauncher {
	constructor(
		private readonly parent: ParentFacts,
		private readonly openChild: OpenChild,
	) {}

	forTurn(turnSignal: AbortSignal): TurnSubagents {
		return new TurnSubagents(this.parent, this.openChild, turnSignal);
	}
}

type ResultUse = "returned" | "background";

export class TurnSubagents {
	private readonly running = new Set<Promise<void>>();

	constructor(
		private readonly parent: ParentFacts,
		private readonly openChild: OpenChild,
		/** Aborted when the parent's turn is cancelled (host abort, session.cancel, runtime.close): background children stop with it. */
		private readonly turnSignal: AbortSignal,
	) {}

	forCall(callId: string, budget: Budget, callSignal: AbortSignal, flow: CallFlow): SubagentSpawner {
		return { spawn: (request) => this.spawn(request, callId, budget, callSignal, flow) };
	}

	/** Waits for background children, so their lineage is recorded before the parent's turn ends. */
	async settle(): Promise<void> {
		while (this.running.size > 0) await Promise.all([...this.running]);
	}

	private async spawn(request: SubagentRequest, callId: string, budget: Budget, callSignal: AbortSignal, flow: CallFlow): Promise<SubagentOutcome> {
		const prepared = this.prepare(request, callId, budget, flow.argumentsLabel);
		const started = await subagentStart(this.parent.hooks, request.task, prepared.initialContext, callId, prepared.depth);
		const spec = { ...prepared, initialContext: started.initialContext };
		const task = started.task;
		const child = await this.openChild(spec);
		const { recorder } = this.parent;
		const tools = spec.tools.list().map((t) => t.name);
		await recorder.emit("subagent.started", { call_id: callId, child_session: child.id, depth: spec.depth, mode: spec.mode, tools });
		await recorder.audit(
			"subagent.started",
			{ child_session: child.id, depth: spec.depth, mode: spec.mode, tools, background: request.background === true, grants: spec.grants.map((g) => g.id) },
			callId,
		);
		if (request.background) {
			const run = this.runChild(child, task, this.turnSignal, callId, "background").then(() => undefined);
			this.running.add(run);
			void run.finally(() => this.running.delete(run));
			return { child: child.id, status: "running", text: "" };
		}
		const outcome = await this.runChild(child, task, callSignal, callId, "returned");
		// The child's answer comes from everything its context held: the parent's result carries that.
		flow.observe(child.contextLabel);
		return outcome;
	}

	/** Checks the request against the parent; a refusal is one line for the model. */
	private prepare(request: SubagentRequest, callId: string, budget: Budget, initialContext: Label): ChildSpec {
		const { parent } = this;
		const depth = parent.depth + 1;
		if (depth > MAX_SUBAGENT_DEPTH) throw new ToolError(`sub-agents nest at most ${MAX_SUBAGENT_DEPTH} deep`);
		const mode = (request.mode ?? parent.policy.mode) as PermissionMode;
		if (isMorePermissive(mode, parent.policy.mode)) {
			throw new ToolError(`mode ${mode} is more permissive than this session's ${parent.policy.mode}; a sub-agent never gets more than its parent`);
		}
		const names = request.tools ?? parent.tools.list().map((t) => t.name).filter((n) => n !== "agent");
		const tools = new ToolRegistry();
		for (const name of names) {
			const tool = parent.tools.get(name);
			if (!tool) throw new ToolError(`tool ${name} is not available to this session, so a sub-agent cannot have it`);
			if (name === "agent" && depth >= MAX_SUBAGENT_DEPTH) throw new ToolError(`a sub-agent at depth ${depth} cannot spawn sub-agents (depth limit ${MAX_SUBAGENT_DEPTH})`);
			tools.register(tool);
		}
		let grants: Capability[];
		try {
			grants = childGrants(parent.authority, parent.policy.mode, mode, `subagent:${callId}`, `${callId}`);
		} catch (err) {
			if (err instanceof DelegationError) throw new ToolError(err.message);
			throw err;
		}
		return { parent, callId, depth, mode, tools, grants, model: this.childModel(request, callId), budget: budget.child("subagent"), initialContext };
	}

	/**
	 * A scripted parent's child follows its own plan from the call's arguments, never the parent's.
	 * A wrapper around a scripted model (the eval's observing one) keeps its `scripted:` spec.
	 */
	private childModel(request: SubagentRequest, callId: string): ModelProvider {
		const { model } = this.parent;
		if (!(model instanceof ScriptedModel) && !model.spec.startsWith("scripted:")) return model;
		if (request.steps === undefined) throw new ToolError("with a scripted model, the sub-agent's own plan must be given in steps");
		try {
			return ScriptedModel.fromPlan({ steps: request.steps }, `${model.spec}#${callId}`);
		} catch (err) {
			throw new ToolError((err as Error).message.split("\n")[0] ?? "invalid steps");
		}
	}

	private async runChild(child: Session, task: string, signal: AbortSignal, callId: string, use: ResultUse): Promise<SubagentOutcome> {
		let result: TurnResult | undefined;
		let error = "";
		try {
			result = await child.send(task, { signal });
		} catch (err) {
			error = err instanceof Error ? err.message : String(err);
		}
		const status = result?.status === "completed" ? "completed" : result?.status === "cancelled" ? "cancelled" : "failed";
		// A foreground child whose call was cancelled has nobody to return its answer to.
		const resultUsed = use === "returned" && signal.aborted ? "discarded" : use;
		await child.end(status === "failed" ? "error" : "ok");
		const { recorder } = this.parent;
		await recorder.emit("subagent.completed", { call_id: callId, child_session: child.id, status, result_used: resultUsed });
		const text = status === "completed" ? (result?.text ?? "") : (result?.error ?? error);
		await recorder.audit("subagent.completed", { child_session: child.id, status, result_used: resultUsed, ...(text ? { text } : {}) }, callId);
		return { child: child.id, status, text };
	}
}
