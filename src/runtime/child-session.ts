/**
 * Opens a sub-agent's session: its own id, evidence stream and approvals, under its parent's
 * workspace, rules, ceiling and confirm callback, with the row naming its parent session and call.
 */
import { sessionMemory } from "./session-memory.js";
import { randomUUID } from "node:crypto";
import type { PermissionEngine } from "../kernel/admission/permission-engine.js";
import type { ShellParser } from "../kernel/admission/shell/shell-parser.js";
import { ShellParses } from "../kernel/admission/shell/shell-parses.js";
import type { PolicyContext } from "../kernel/admission/types.js";
import { Authority } from "../kernel/authority/authority.js";
import type { AnyWardenEvent, EventLineage } from "../kernel/evidence/event-types.js";
import { EVENT_SCHEMA_VERSION } from "../kernel/evidence/event-types.js";
import { EvidenceRecorder } from "../kernel/evidence/evidence-recorder.js";
import type { Redactor } from "../kernel/flow/redaction-types.js";
import type { Message } from "../models/provider.js";
import type { Store } from "../store/store.js";
import { Session } from "./session.js";
import { SYSTEM_PROMPT_LABEL } from "./system-prompt.js";
import { openSessionFlow } from "./session-flow-setup.js";
import { SessionApprovals } from "./session-approvals.js";
import { type ChildSpec, type OpenChild, SubagentLauncher } from "./subagents.js";
import { defaultSystemPrompt } from "./system-prompt.js";

export interface ChildSessionParts {
	store: Store;
	engine: PermissionEngine;
	redactor: Redactor;
	env: NodeJS.ProcessEnv;
	shell: ShellParser;
}

export function childOpener(parts: ChildSessionParts): OpenChild {
	const open: OpenChild = async (spec: ChildSpec) => {
		const { store, engine, redactor, env, shell } = parts;
		const { parent } = spec;
		const id = randomUUID();
		// A sub-agent is a session of its own: its parses are its own too, shared by its decision, admission, flow and primitives.
		const parses = new ShellParses(shell);
		// The parent's host rules (persisted answers included) and run-deny rules hold in the child too.
		const policy: PolicyContext = {
			...parent.policy,
			mode: spec.mode,
			hostRules: [...parent.policy.hostRules],
			runDenyRules: [...parent.policy.runDenyRules],
			parseShell: (command) => parses.parse(command),
		};
		// Counted grants share their parent grant's count, so parent and child together never spend more than it.
		const inherited = parent.authority.identity;
		const authority = new Authority({ grants: spec.grants, ceiling: parent.authority.ceiling, shell: parses, parent: parent.authority, ...(inherited ? { identity: inherited } : {}) });
		let turnListener: ((event: AnyWardenEvent) => void) | undefined;
		const parentSession = parent.recorder.session;
		const lineage: EventLineage = { parent_session: parentSession, parent_call: spec.callId, depth: spec.depth };
		const recorder = new EvidenceRecorder(store, redactor, id, (event) => {
			turnListener?.(event);
			// The parent's host hears the child too; a grandchild's event keeps the lineage it came with.
			parent.recorder.relay(event.lineage ? event : { ...event, lineage });
		});
		await store.createSession({
			id,
			workspace: policy.workspace,
			mode: spec.mode,
			model: spec.model.spec,
			created_at: new Date().toISOString(),
			parent_session: parentSession,
			parent_call: spec.callId,
		});
		const history: Message[] = [{ role: "system", content: defaultSystemPrompt(spec.mode) }];
		await recorder.message(history[0]!, SYSTEM_PROMPT_LABEL);
		await recorder.emit("session.started", { event_schema: EVENT_SCHEMA_VERSION, workspace: policy.workspace, mode: spec.mode, model: spec.model.spec, resumed: false }, 0);
		await recorder.audit(
			"session.started",
			{
				workspace: policy.workspace,
				mode: spec.mode,
				model: spec.model.spec,
				parent_session: parentSession,
				parent_call: spec.callId,
				depth: spec.depth,
				tools: spec.tools.list().map((t) => t.name),
				rules: policy.hostRules.map((r) => ({ text: r.text, outcome: r.outcome, source: r.source })),
				run_deny: policy.runDenyRules.map((r) => r.text),
				ceiling: { hash: authority.ceiling.hash },
				grants: authority.grants,
			},
			undefined,
			0,
		);
		// The parent's hooks hold in the child: its calls are decided through them, its runs recorded in its stream.
		const hooks = parent.hooks?.forChild(recorder, spec.mode);
		const session: Session = new Session({
			recorder,
			store,
			model: spec.model,
			tools: spec.tools,
			decider: parent.decider ?? engine,
			policy,
			confirm: parent.confirm,
			approvals: new SessionApprovals(recorder, store, engine, policy, [], parent.flowSetup.asks),
			authority,
			limits: parent.limits,
			maxSteps: parent.maxSteps,
			modelTimeoutMs: parent.modelTimeoutMs,
			env,
			history,
			flow: openSessionFlow(parent.flowSetup, recorder, authority, spec.initialContext),
			context: { labels: [SYSTEM_PROMPT_LABEL], sent: 0 },
			parseShell: (command) => parses.parse(command),
			sessionBudget: spec.budget,
			turnBudget: {},
			setTurnListener: (listener) => {
				turnListener = listener;
			},
			onEnd: () => undefined,
			...(parent.mcp ? { mcp: parent.mcp } : {}),
			...(hooks ? { hooks } : {}),
			// Offered memory tools act on the same store as the parent's, as this child's session (its notes name it as their writer); words rank, without embeddings.
			...(spec.tools.get("memory_search") || spec.tools.get("memory_write") ? { memory: sessionMemory(store.memory, recorder, policy.workspace) } : {}),
			...(spec.tools.get("agent")
				? {
						subagents: new SubagentLauncher(
							{ ...parent, recorder, depth: spec.depth, policy, authority, tools: spec.tools, model: spec.model, hooks },
							open,
						),
					}
				: {}),
		});
		return session;
	};
	return open;
}
