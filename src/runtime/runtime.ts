/**
 * The embedding API's entry point: one state directory, one evidence store, one policy engine,
 * and the sessions that run governed turns against them.
 */
import { sessionMemory } from "./session-memory.js";
import { MEMORY_TOOLS } from "../tools/memory-tools.js";
import { toolOutputChannel } from "./live-tool-output.js";
import { definitionReviewer } from "./mcp/mcp-review-asks.js";
import { type ElicitCallback, type McpSessionTools, openSessionMcp } from "./mcp/mcp-session-tools.js";
import { randomUUID } from "node:crypto";
import { PermissionEngine } from "../kernel/admission/permission-engine.js";
import { identityScope } from "../kernel/admission/program-identity.js";
import type { ApprovedRule } from "../kernel/approval/approval-types.js";
import { toPermissionRule } from "../kernel/approval/approved-rules.js";
import { ShellParser } from "../kernel/admission/shell/shell-parser.js";
import { ShellParses } from "../kernel/admission/shell/shell-parses.js";
import { tighterBudget } from "../kernel/authority/task-ceiling.js";
import { Budget } from "../kernel/budget/budget.js";
import type { BudgetAmounts, BudgetLimits, BudgetUsage } from "../kernel/budget/budget-types.js";
import type { AuditRecord, AuditVerifyResult } from "../kernel/evidence/audit-types.js";
import type { AnyWardenEvent } from "../kernel/evidence/event-types.js";
import { EVENT_SCHEMA_VERSION } from "../kernel/evidence/event-types.js";
import { EvidenceRecorder } from "../kernel/evidence/evidence-recorder.js";
import { createRedactor } from "../kernel/flow/redaction.js";
import type { Redactor } from "../kernel/flow/redaction-types.js";
import { FlowConfigError } from "../kernel/flow/flow-errors.js";
import { type ModelProfiles, profileForSpec } from "../models/model-profile.js";
import { createModel } from "../models/model-spec.js";
import type { Message, ModelProvider } from "../models/provider.js";
import { join, type Label } from "../kernel/flow/label.js";
import { INITIAL_CONTEXT } from "../kernel/flow/session-flow.js";
import { realDirectory } from "../providers/directory-probe.js";
import { type RecoveryReport, recoverOperations } from "../kernel/operations/recovery.js";
import { resolveStateDir } from "../store/state-dir.js";
import { openSqliteStore, toAuditRecords, toWardenEvents } from "../kernel/evidence/store-rows.js";
import type { SessionRow, Store } from "../store/store.js";
import { builtinTools, ToolRegistry } from "../tools/registry.js";
import { DEFAULT_TOOL_LIMITS } from "../tools/tool.js";
import { registerToolTool } from "../tools/register-tool.js";
import { budgetOption, budgetRecord } from "./budget-options.js";
import { type CallExplanation, explainCall, explainModelCall, explainSessions, isModelCallTarget, type ModelCallExplanation } from "./explain.js";
import { explainToolCall, type PolicyCheckRequest, type PolicyCheckResult } from "./policy-check.js";
import { RuntimeConfigError } from "./runtime-config-error.js";
import { exportReplay } from "./replay/replay-export.js";
import { resumedContext } from "./resume-context.js";
import { consumedBySession, usesByGrant } from "./resumed-authority.js";
import { resumedBudget } from "./resumed-budget.js";
import { childOpener } from "./child-session.js";
import { Session } from "./session.js";
import { SYSTEM_PROMPT_LABEL } from "./system-prompt.js";
import { ContextSettingsError, contextSettings } from "./context/context-settings.js";
import type { ContextKeeper } from "./context/context-keeper.js";
import { noteHistory, sessionInstructions, sessionKeeper, storedInstructionsAt } from "./context/session-context.js";
import { SessionApprovals, withApprovedRules } from "./session-approvals.js";
import { sessionAuthority, sessionCeiling } from "./session-authority.js";
import type { SessionOptions } from "./session-options.js";
import { openSessionFlow, sinkRegistry, type FlowSetup } from "./session-flow-setup.js";
import { sessionPolicy } from "./session-policy.js";
import { sandboxProfileFor } from "../kernel/admission/modes.js";
import { SubagentLauncher } from "./subagents.js";
import type { SessionHooks } from "./hooks/session-hooks.js";
import { sessionHooks, startSession } from "./hooks/session-hook-setup.js";
import { AskBoard } from "./asks/ask-board.js";
import { elicitThroughAsks } from "./asks/elicit-asks.js";
import { type StoreWake, stateDirWake } from "../store/store-wake.js";
import { undoChanges, type UndoOptions, type UndoResult, type UndoTarget } from "./undo.js";
import { defaultSystemPrompt } from "./system-prompt.js";
import { activateSkillTool } from "../tools/activate-skill.js";
import type { SessionSkills } from "./skills/session-skills.js";
import { catalogueMessage, loadSessionSkills, skillsAudit, storedCatalogueAt } from "./skills/session-skill-setup.js";
import { narrowedDecider } from "./skills/skill-narrowing.js";
import { recordedFileLabel } from "./recorded-file-label.js";

export { RuntimeConfigError };

export interface RuntimeOptions {
	/** State directory; default from WARDEN_HOME, then the user's state home. */
	stateDir?: string;
	/** A store to use instead of opening SQLite in the state directory. */
	store?: Store;
	/** Environment for model specs, redaction of env secrets, and tool processes. */
	env?: NodeJS.ProcessEnv;
	/** Host-wide limits: every session of this Runtime charges them too. */
	budget?: BudgetLimits;
	/**
	 * Only reads the evidence: takes no process lease and never blocks a writer, so it works while
	 * other processes run sessions on the same state dir; opening a session or revoking a rule is refused.
	 */
	readOnly?: boolean;
	/**
	 * Settle what a crash left pending (src/kernel/operations/recovery.ts) before anything else.
	 * Default: when the Runtime opened the store itself for writing (it then holds a process lease);
	 * a store the host passes in is the host's to recover.
	 */
	recover?: boolean;
}

export interface OpenSessionOptions extends SessionOptions {
	/** Receives every event of the session, session-level ones included, after it is persisted. */
	onEvent?: (event: AnyWardenEvent) => void;
}

/** Like openSession's, less the workspace (the session's); the model defaults to the session's spec. */
export type ResumeSessionOptions = Omit<OpenSessionOptions, "workspace" | "model" | "systemPrompt"> & { model?: OpenSessionOptions["model"] };

/** What openSession and resumeSession share before the session's first record. */
interface PreparedSession {
	id: string;
	policy: Awaited<ReturnType<typeof sessionPolicy>>;
	model: ModelProvider;
	maxSteps: number;
	modelTimeoutMs: number;
	ceiling: ReturnType<typeof sessionCeiling>;
	sessionLimits: BudgetLimits;
	turnLimits: BudgetLimits;
	registry: FlowSetup["registry"];
	authority: ReturnType<typeof sessionAuthority>;
	/** The session's parses: its decision, capability admission, flow and shell primitive read the same one. */
	parses: ShellParses;
	recorder: EvidenceRecorder;
	/** The running turn's listener: the recorder routes each event to it. */
	listener: { turn: ((event: AnyWardenEvent) => void) | undefined };
	/** The data of the session's start record in the audit. */
	startedAudit: Record<string, unknown>;
	initialContext: Label | undefined;
	/** A resumed session's use in its earlier runs, rebuilt from its rows: its budget starts there. */
	carried?: BudgetAmounts;
	/** Approval leases a resumed session's earlier runs consumed. */
	spentLeases?: string[];
	/** The context's counter, compaction and manifests, once the first messages are noted. */
	keeper?: ContextKeeper;
	/** The skills discovered for the session (src/runtime/skills); absent when the host offers none. */
	skills?: SessionSkills;
	hooks?: SessionHooks;
}

export class Runtime {
	private readonly sessions = new Set<Session>();
	/** What recovery on open settled (absent when it did not run: read-only, or a store the host passed in). */
	recovery: RecoveryReport | undefined;
	private closed = false;
	/** Canonicalizes shell commands for the capability layer; loaded with the first session. */
	private shellParser: ShellParser | undefined;
	/** Wakes a session waiting on an ask when another process writes the state dir. */
	private readonly askWake: StoreWake;

	private constructor(
		readonly stateDir: string,
		readonly store: Store,
		private readonly engine: PermissionEngine,
		private readonly redactor: Redactor,
		private readonly env: NodeJS.ProcessEnv,
		private readonly hostBudget: Budget,
	) {
		this.askWake = stateDirWake(stateDir);
	}

	static async open(options: RuntimeOptions = {}): Promise<Runtime> {
		const env = options.env ?? process.env;
		const stateDir = resolveStateDir(options.stateDir, env);
		const store = options.store ?? openSqliteStore(stateDir, options.readOnly ? { readOnly: true } : {});
		// What processes that are gone left pending is settled first; a live process's work is left alone.
		const recover = options.recover ?? (options.store === undefined && !options.readOnly);
		let recovery: RecoveryReport | undefined;
		try {
			if (recover) recovery = await recoverOperations(store);
		} catch (err) {
			await store.close();
			throw err;
		}
		const hostBudget = new Budget("host", budgetOption(options.budget, "budget"));
		const engine = await PermissionEngine.create();
		const runtime = new Runtime(stateDir, store, engine, createRedactor({ env }), env, hostBudget);
		runtime.recovery = recovery;
		return runtime;
	}

	async openSession(options: OpenSessionOptions): Promise<Session> {
		if (this.closed) throw new RuntimeConfigError("runtime is closed");
		// Hosts in plain JavaScript can omit these; without the checks they fail deep inside with Node's wording.
		if (typeof options.workspace !== "string" || options.workspace === "") {
			throw new RuntimeConfigError("workspace is required: pass the directory the agent works in");
		}
		if (typeof options.model !== "string" && typeof options.model?.complete !== "function") {
			throw new RuntimeConfigError("model is required: pass a ModelProvider or a spec such as scripted:plan.yaml");
		}
		const setup = await this.prepareSession(options, randomUUID());
		const { id, recorder, policy, model } = setup;
		const { mode, workspace } = policy;
		await this.store.createSession({ id, workspace, mode, model: model.spec, created_at: new Date().toISOString() });
		const systemPrompt = options.systemPrompt ?? defaultSystemPrompt(mode);
		const history: Message[] = [{ role: "system", content: systemPrompt }];
		const labels = [SYSTEM_PROMPT_LABEL];
		await recorder.message(history[0], SYSTEM_PROMPT_LABEL);
		// AGENTS.md, read fresh: the model's instructions, never policy (an untrusted project's, or a file written from untrusted content, are labelled so).
		const instructions = await sessionInstructions(options.instructions, workspace, this.env, this.store);
		if (instructions?.text) {
			history.push({ role: "system", content: instructions.text });
			labels.push(instructions.label);
			await recorder.message(history[1], instructions.label);
		}
		// The model's context holds them from the start: an untrusted project's lowers its integrity.
		if (instructions?.text) setup.initialContext = join(INITIAL_CONTEXT, instructions.label);
		// Agent Skills: only the catalogue (names and descriptions) up front; a body enters when activated.
		const catalogue = catalogueMessage(setup.skills);
		if (catalogue) {
			history.push(catalogue.message);
			labels.push(catalogue.label);
			await recorder.message(catalogue.message, catalogue.label);
			setup.initialContext = join(setup.initialContext ?? INITIAL_CONTEXT, catalogue.label);
		}
		setup.keeper = this.keeperFor(setup, options, instructions);
		noteHistory(setup.keeper, history, labels, instructions?.text ? 1 : undefined, catalogue ? history.length - 1 : undefined);
		await recorder.emit("session.started", { event_schema: EVENT_SCHEMA_VERSION, workspace, mode, model: model.spec, resumed: false }, 0);
		await recorder.audit("session.started", setup.startedAudit, undefined, 0);
		const mcp = await openSessionMcp({ ...options, elicit: this.elicitFor(setup, options, recorder) }, { store: this.store, recorder, policy, authority: setup.authority, stateDir: this.stateDir });
		await startSession(setup.hooks, "startup");
		return this.assembleSession(setup, options, history, { labels, sent: 0 }, mcp);
	}

	/**
	 * Continues a session that ended, failed or was interrupted, in a new turn of the same
	 * conversation: its stored messages and their labels are the model's context again. Messages are
	 * stored redacted, so the resumed model sees masks where the first one saw secrets; the labels
	 * still say the context held them (a message stored without a label counts as secret). The workspace is the session's; the model is `options.model`, else the
	 * session's spec. A session open in this runtime, a sub-agent's session or an unknown id is refused.
	 */
	async resumeSession(sessionId: string, options: ResumeSessionOptions = {}): Promise<Session> {
		if (this.closed) throw new RuntimeConfigError("runtime is closed");
		if ([...this.sessions].some((s) => s.id === sessionId)) throw new RuntimeConfigError(`session ${sessionId} is open in this runtime: run its next turn instead of resuming it`);
		const row = await this.store.getSession(sessionId);
		if (!row) throw new RuntimeConfigError(`unknown session ${sessionId}`);
		if (row.parent_session) throw new RuntimeConfigError(`session ${sessionId} is a sub-agent of session ${row.parent_session}: resume that session instead`);
		const resumed = resumedContext(sessionId, await this.store.listMessages(sessionId));
		const opened: OpenSessionOptions = { ...options, workspace: row.workspace, model: options.model ?? resumedModel(row.model, options.modelProfiles), mode: options.mode ?? (row.mode as OpenSessionOptions["mode"]) };
		const setup = await this.prepareSession(opened, sessionId, resumed.context);
		const { recorder, policy, model } = setup;
		const spent = await resumedBudget(this.store, sessionId);
		setup.carried = spent.used;
		// A use an earlier run's intent recorded stays spent, whatever became of the operation.
		const consumed = await consumedBySession(this.store, sessionId);
		setup.authority.markSpent(consumed.grants);
		setup.spentLeases = consumed.leases;
		// Active again and this process's until this run of it ends; a second process resuming it is refused, naming this one.
		await this.store.claimSession(sessionId);
		await recorder.emit("session.started", { event_schema: EVENT_SCHEMA_VERSION, workspace: policy.workspace, mode: policy.mode, model: model.spec, resumed: true }, 0);
		await recorder.audit(
			"session.resumed",
			{
				...setup.startedAudit,
				previous_status: row.status,
				messages: resumed.history.length,
				unlabeled: resumed.unlabeled,
				context: resumed.context,
				budget_carried: { used: spent.used, cut_off_turns: spent.cutOffTurns },
				authority_consumed: { grant_uses: usesByGrant(consumed.grants, `session:${sessionId}`), leases: new Set(consumed.leases).size },
			},
			undefined,
			0,
		);
		const mcp = await openSessionMcp({ ...opened, elicit: this.elicitFor(setup, opened, recorder) }, { store: this.store, recorder, policy, authority: setup.authority, stateDir: this.stateDir });
		const compactionsBefore = (await this.store.listAudit({ session: sessionId })).filter((r) => r.kind === "compaction.started").length;
		setup.keeper = this.keeperFor(setup, opened, undefined, compactionsBefore);
		noteHistory(setup.keeper, resumed.history, resumed.labels, storedInstructionsAt(resumed.history), storedCatalogueAt(resumed.history));
		setup.skills?.restore(await this.store.listEvents(sessionId));
		await startSession(setup.hooks, "resume");
		// None of the history was sent to a model by this process: all of it is checked against the model's sink again.
		return this.assembleSession(setup, opened, resumed.history, { labels: resumed.labels, sent: 0 }, mcp);
	}

	/** What opening and resuming share up to the session's first record: policy, model, limits, authority, recorder. */
	private async prepareSession(options: OpenSessionOptions, id: string, initialContext?: Label): Promise<PreparedSession> {
		const policy = await sessionPolicy(options, this.env);
		// "Always" answers given in this workspace before: exact rules, each named by its id.
		const approved = await this.store.listApprovedRules({ workspace: policy.workspace });
		policy.hostRules = withApprovedRules(policy.hostRules, approved.map(toPermissionRule));
		// Warden's own state stays read-only to a sandboxed command, should it lie in the workspace.
		if (policy.sandbox) policy.sandbox.protect = [...(policy.sandbox.protect ?? []), this.stateDir];
		const { mode, workspace, hostRules, runDenyRules } = policy;
		const model = typeof options.model === "string" ? await createModel(options.model, this.env, options.modelProfiles ? { profiles: options.modelProfiles } : {}) : options.model;
		try {
			contextSettings(model, options.context);
		} catch (err) {
			if (err instanceof ContextSettingsError) throw new RuntimeConfigError(err.message);
			throw err;
		}
		const maxSteps = options.maxSteps ?? 50;
		if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new RuntimeConfigError(`max steps must be a positive integer, got ${maxSteps}`);
		const modelTimeoutMs = options.modelTimeoutMs ?? 600_000;
		if (!Number.isInteger(modelTimeoutMs) || modelTimeoutMs < 1) {
			throw new RuntimeConfigError(`model timeout must be a positive number of milliseconds, got ${modelTimeoutMs}`);
		}
		const ceiling = sessionCeiling(options);
		// The ceiling's budget bounds the session's own: the smaller limit of each counter holds.
		const sessionLimits = tighterBudget(budgetOption(options.budget, "budget"), ceiling.manifest.budget);
		const turnLimits = budgetOption(options.turnBudget, "turnBudget");
		const budgets = budgetRecord({ host: this.hostBudget.ownLimits(), session: sessionLimits, turn: turnLimits });

		let registry: FlowSetup["registry"];
		try {
			registry = sinkRegistry(options.flow ?? {}, model);
		} catch (err) {
			if (err instanceof FlowConfigError) throw new RuntimeConfigError(err.message);
			throw err;
		}

		this.shellParser ??= await ShellParser.create();
		const parses = new ShellParses(this.shellParser);
		policy.parseShell = (command) => parses.parse(command);
		const authority = sessionAuthority(options, mode, ceiling, `session:${id}`, parses, identityScope(policy));
		const listener: PreparedSession["listener"] = { turn: undefined };
		const recorder = new EvidenceRecorder(this.store, this.redactor, id, (event) => {
			listener.turn?.(event);
			try {
				options.onEvent?.(event);
			} catch {
				// The event is already committed; a failing host callback must not cut the turn's evidence short.
			}
		});
		const startedAudit: Record<string, unknown> = {
			workspace,
			mode,
			model: model.spec,
			rules: hostRules.map((r) => ({ text: r.text, outcome: r.outcome, source: r.source })),
			run_deny: runDenyRules.map((r) => r.text),
			...(options.configNotes?.length ? { config_ignored: options.configNotes.map((n) => ({ item: n.item, source: n.source, why: n.why })) } : {}),
			...(budgets ? { budget: budgets } : {}),
			ceiling: { hash: ceiling.hash, manifest: ceiling.manifest },
			grants: authority.grants,
			// Said once, here: without a sandbox every shell call is asked about.
			sandbox: { available: policy.sandbox?.available ?? false, ...(policy.sandbox?.provider ? { provider: policy.sandbox.provider } : {}), ...(policy.sandbox?.reason ? { reason: policy.sandbox.reason } : {}), profile: sandboxProfileFor(mode, policy.sandbox?.required) },
			flow: { sinks: registry.rules, generation: registry.generation, ...(options.flow?.secret_files ? { secret_files: options.flow.secret_files } : {}) },
			// The registry beyond the built-in defaults, as it was in force for this session.
			...(options.protectedPaths?.length ? { protected_paths: policy.protectedPaths?.rules().filter((r) => r.source !== "default") } : {}),
		};
		const skills = await loadSessionSkills(options.skills, workspace, this.env, recorder, (file, sha256) => recordedFileLabel(this.store, workspace, file, sha256));
		if (skills && (skills.offered || skills.catalogue.warnings.length > 0)) startedAudit.skills = skillsAudit(skills);
		const hooks = sessionHooks(options.hooks, recorder, workspace, this.env, mode);
		return { id, policy, model, maxSteps, modelTimeoutMs, ceiling, sessionLimits, turnLimits, registry, authority, parses, recorder, listener, startedAudit, initialContext, ...(skills?.offered ? { skills } : {}), ...(hooks ? { hooks } : {}) };
	}

	/** Where the session's asks become rows any surface may answer. */
	private askBoard(options: Pick<OpenSessionOptions, "askTimeoutMs">): AskBoard {
		return new AskBoard({ rows: this.store.asks, wake: this.askWake, ...(options.askTimeoutMs !== undefined ? { timeoutMs: options.askTimeoutMs } : {}) });
	}

	/**
	 * The host's elicit callback through the ask board, so the console can answer an MCP server's
	 * request for input as it answers approvals. No callback (automation) declines; a ceiling that
	 * approves no ask is asked nothing.
	 */
	private elicitFor(setup: PreparedSession, options: Pick<OpenSessionOptions, "elicit" | "askTimeoutMs">, recorder: EvidenceRecorder): ElicitCallback | undefined {
		if (setup.ceiling.manifest.approval === "deny" || !options.elicit) return undefined;
		return elicitThroughAsks(this.askBoard(options), recorder, options.elicit);
	}

	/** The session's context keeper: its counter, compactions and manifests. */
	private keeperFor(setup: PreparedSession, options: OpenSessionOptions, instructions?: Parameters<typeof sessionKeeper>[3], compactionsBefore = 0): ContextKeeper {
		// The settings were checked in prepareSession, before anything was recorded.
		return sessionKeeper(setup.model, options.context, (after) => this.store.listEvents(setup.id, after), instructions, compactionsBefore, setup.skills);
	}

	/** The Session over a prepared setup and its conversation so far. */
	private assembleSession(setup: PreparedSession, options: OpenSessionOptions, history: Message[], context: { labels: Label[]; sent: number }, mcp?: McpSessionTools): Session {
		const { policy, model, maxSteps, modelTimeoutMs, ceiling, registry, authority, parses, recorder, listener } = setup;
		// register_tool adds the session's JIT tools to this registry (src/runtime/jit-registrar.ts).
		const tools = new ToolRegistry([...builtinTools(), registerToolTool, ...(setup.skills ? [activateSkillTool] : []), ...(options.memory === false ? [] : MEMORY_TOOLS)]);
		mcp?.attach(tools);
		// A ceiling whose approval policy is deny approves no ask, whatever the host would answer.
		const confirm = ceiling.manifest.approval === "deny" ? undefined : options.confirm;
		const limits = { ...DEFAULT_TOOL_LIMITS, ...options.limits };
		// A ceiling that approves no ask releases nothing either.
		const flowSetup: FlowSetup = {
			settings: options.flow ?? {},
			registry,
			redactor: this.redactor,
			store: this.store,
			workspace: policy.workspace,
			release: ceiling.manifest.approval === "deny" ? undefined : options.release,
			asks: this.askBoard(options),
		};
		const flow = openSessionFlow(flowSetup, recorder, authority, setup.initialContext);
		const shellParser = this.shellParser as ShellParser;
		const subagents = new SubagentLauncher(
			{ recorder, depth: 0, policy, authority, tools, model, confirm, limits, maxSteps, modelTimeoutMs, flowSetup, mcp: mcp?.router, hooks: setup.hooks, ...(setup.skills ? { decider: narrowedDecider(this.engine, setup.skills, { admits: false }) } : {}) },
			childOpener({ store: this.store, engine: this.engine, redactor: this.redactor, env: this.env, shell: shellParser }),
		);
		const approvals = new SessionApprovals(recorder, this.store, this.engine, policy, setup.spentLeases, flowSetup.asks);
		const sessionBudget = this.hostBudget.child("session", setup.sessionLimits);
		if (setup.carried) sessionBudget.carry(setup.carried);
		const session = new Session({
			recorder,
			store: this.store,
			model,
			tools,
			// An active skill's allowed-tools narrows what the policy allows, never more.
			decider: setup.skills ? narrowedDecider(this.engine, setup.skills) : this.engine,
			policy,
			confirm,
			approvals,
			authority,
			limits,
			subagents,
			maxSteps,
			modelTimeoutMs,
			env: this.env,
			history,
			flow,
			context,
			parseShell: (command) => parses.parse(command),
			...(options.files ? { files: options.files } : {}),
			...(options.terminals ? { terminals: options.terminals } : {}),
			...(setup.keeper ? { keeper: setup.keeper } : {}),
			...(setup.skills ? { skills: setup.skills } : {}),
			...(setup.hooks ? { hooks: setup.hooks } : {}),
			...(options.askUser ? { askUser: options.askUser } : {}),
			...(options.memory === false ? {} : { memory: sessionMemory(this.store.memory, recorder, policy.workspace, options.memory) }),
			...(options.onToolOutput ? { toolOutput: toolOutputChannel({ session: recorder.session, redactor: this.redactor, turn: () => recorder.currentTurn, deliver: options.onToolOutput }) } : {}),
			sessionBudget,
			turnBudget: setup.turnLimits,
			setTurnListener: (turnListener) => {
				listener.turn = turnListener;
			},
			onEnd: () => this.sessions.delete(session),
			...(mcp ? { mcp: mcp.router, release: () => mcp.close(), reviewDefinitions: definitionReviewer({ mcp, recorder, approvals, authority, confirm, store: this.store, workspace: policy.workspace }) } : {}),
		});
		this.sessions.add(session);
		return session;
	}

	listSessions(limit?: number): Promise<SessionRow[]> {
		return this.store.listSessions(limit);
	}

	getSession(id: string): Promise<SessionRow | undefined> {
		return this.store.getSession(id);
	}

	async sessionEvents(id: string): Promise<AnyWardenEvent[]> {
		return toWardenEvents(await this.store.listEvents(id));
	}

	async listAudit(filter?: { session?: string; limit?: number }): Promise<AuditRecord[]> {
		return toAuditRecords(await this.store.listAudit(filter));
	}

	/**
	 * One model call and the context manifest it was sent with, by `model_<turn>_<step>`,
	 * `compaction_<k>` or the seq of its llm.complete or context.manifest record; undefined when the
	 * id names no model call (explain() then takes it as a tool call's).
	 */
	async explainModel(id: string, options: { session?: string } = {}): Promise<ModelCallExplanation | undefined> {
		const audit = await this.listAudit(options.session === undefined ? {} : { session: options.session });
		return isModelCallTarget(audit, id) ? explainModelCall(audit, id, options.session) : undefined;
	}

	/**
	 * The operation tree of one tool call, by call id or by the seq of one of its audit records (an
	 * effect's): what proposed it, what admitted it, what it changed, and which links are missing.
	 * Throws ExplainError for an unknown id or a call id that several sessions hold.
	 */
	async explain(id: string, options: { session?: string } = {}): Promise<CallExplanation> {
		// Audit and events from one snapshot: a call another process is settling is seen whole or not at all.
		const evidence = await this.store.snapshot((view) => {
			const audit = toAuditRecords(view.listAudit());
			let sessions = explainSessions(audit, id, options.session);
			// A call with no audit record at all is still found by its events.
			if (sessions.length === 0 && !/^#?\d+$/.test(id.trim())) sessions = view.listSessions().map((s) => s.id);
			const events: AnyWardenEvent[] = [];
			for (const session of sessions) events.push(...toWardenEvents(view.listEvents(session)));
			return { events, audit };
		});
		return explainCall(evidence, id, options.session);
	}

	/**
	 * Restores the files a session (or one of its calls) wrote or deleted, as a new governed session
	 * with one call per file; a file changed since is refused and left as it is (src/runtime/undo.ts).
	 * Throws UndoTargetError for an unknown or ambiguous target.
	 */
	async undo(target: UndoTarget, options: UndoOptions = {}): Promise<UndoResult> {
		if (this.closed) throw new RuntimeConfigError("runtime is closed");
		return undoChanges({ store: this.store, redactor: this.redactor }, target, options);
	}

	/**
	 * One session as replay lines (src/runtime/replay/replay-format.ts), chained, the end line last;
	 * written from the store's redacted evidence only. Throws ReplayError for an unknown session.
	 */
	exportReplay(sessionId: string): Promise<string[]> {
		return exportReplay(this.store, sessionId);
	}

	verifyAudit(): Promise<AuditVerifyResult> {
		return this.store.verifyAudit();
	}

	/**
	 * `value` masked as the evidence masks it, by the redactor all of this Runtime's sessions share
	 * (with every secret value they have read so far). For what a surface draws that does not come
	 * from the evidence: an ask's request, a model's streamed text, the output the model was given.
	 */
	redact<T>(value: T): T {
		return this.redactor.redact(value);
	}

	/** What every session of this Runtime has used so far, with the host-wide limits. */
	budgetUsage(): BudgetUsage {
		return this.hostBudget.usage();
	}

	/** The decision a session opened with these options would make for one call, explained; nothing runs. */
	async checkPolicy(request: PolicyCheckRequest): Promise<PolicyCheckResult> {
		if (this.closed) throw new RuntimeConfigError("runtime is closed");
		// As openSession does: the workspace's persisted "always" answers join the host rules.
		const named = typeof request.workspace === "string" && request.workspace !== "";
		const approvedRules = request.approvedRules ?? (named ? await this.listApprovedRules({ workspace: request.workspace }) : []);
		this.shellParser ??= await ShellParser.create();
		return explainToolCall(this.engine, new ToolRegistry([...builtinTools(), ...MEMORY_TOOLS]), this.env, { ...request, approvedRules }, this.shellParser);
	}

	/** Persisted "always allow" / "always deny" answers, oldest first; `workspace` is matched on its real path. */
	async listApprovedRules(filter: { workspace?: string; includeRevoked?: boolean } = {}): Promise<ApprovedRule[]> {
		const workspace = filter.workspace === undefined ? undefined : await realDirectory(filter.workspace, "workspace");
		return this.store.listApprovedRules({ ...filter, ...(workspace === undefined ? {} : { workspace }) });
	}

	/** Revokes a persisted answer (kept, marked, and recorded in the audit); sessions opened afterwards no longer load it. */
	async revokeApprovedRule(id: number, by = "host"): Promise<ApprovedRule> {
		if (this.closed) throw new RuntimeConfigError("runtime is closed");
		const rule = await this.store.revokeApprovedRule(id, new Date().toISOString(), by);
		await this.store.appendAudit({
			session: "host",
			turn: 0,
			kind: "approval.rule_revoked",
			data: { rule_id: rule.id, tool: rule.tool, pattern: rule.pattern, outcome: rule.outcome, workspace: rule.workspace, revoked_by: by },
		});
		return rule;
	}

	/** Cancels running turns, ends open sessions and closes the store. */
	async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		try {
			for (const session of [...this.sessions]) {
				// A running turn still writes evidence: it must settle before the store closes under it.
				await session.cancel("runtime closed");
				await session.end();
			}
		} finally {
			this.askWake.close();
			await this.store.close();
		}
	}
}

/** The model a resume without one uses: the profile the recorded spec came from, else the spec itself. */
function resumedModel(spec: string, profiles: ModelProfiles | undefined): string {
	const { name, ambiguous } = profileForSpec(spec, profiles);
	if (ambiguous) throw new RuntimeConfigError(`the session's model ${spec} is named by profiles ${ambiguous.join(", ")}: pass --model to choose one`);
	return name ?? spec;
}
