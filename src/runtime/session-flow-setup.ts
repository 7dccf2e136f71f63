/**
 * Opens a session's flow plane: the host's sink rules ahead of the runtime's defaults (the
 * session's model trusted only when it stays on this host), flow decisions written to the
 * session's events and audit, and exact releases asked of the host through `human.ask`.
 */
import type { Authority } from "../kernel/authority/authority.js";
import { llmResource } from "../kernel/authority/resource.js";
import type { EvidenceRecorder } from "../kernel/evidence/evidence-recorder.js";
import type { FlowSettings, ReleaseCallback, SinkRegistry, SinkRule } from "../kernel/flow/flow-types.js";
import type { Label } from "../kernel/flow/label.js";
import type { Redactor } from "../kernel/flow/redaction-types.js";
import { checkSinkRules, createSinkRegistry, defaultSinkRules } from "../kernel/flow/sink-registry.js";
import { SessionFlow } from "../kernel/flow/session-flow.js";
import { createHumanPrimitives } from "../kernel/kernel-human.js";
import { modelProfile } from "../kernel/kernel-llm.js";
import type { ModelProvider } from "../models/provider.js";
import type { Store } from "../store/store.js";
import { AskBoard } from "./asks/ask-board.js";
import { releaseThroughAsks } from "./asks/release-asks.js";

/** What every session of one lineage (a session and its sub-agents) shares. */
export interface FlowSetup {
	settings: FlowSettings;
	registry: SinkRegistry;
	redactor: Redactor;
	store: Store;
	workspace: string;
	/** Absent when nobody may be asked (no callback, or a ceiling whose approval policy is deny). */
	release: ReleaseCallback | undefined;
	/** Where release requests become rows any surface may answer; default: the store's, without a timeout. */
	asks?: AskBoard;
}

/** The registry for a session whose model is `model`: host rules first, then the defaults. */
export function sinkRegistry(settings: FlowSettings, model: Pick<ModelProvider, "spec" | "locality">): SinkRegistry {
	// A rule's own `source` (the config file it came from) is kept; the others are the host's.
	const host: SinkRule[] = checkSinkRules(settings.sinks ?? [], "flow.sinks", "host");
	const local = model.locality === "in-process" || model.locality === "loopback";
	return createSinkRegistry([...host, ...defaultSinkRules({ model: { sink: llmResource(modelProfile(model.spec)), local } })]);
}

export function openSessionFlow(setup: FlowSetup, recorder: EvidenceRecorder, authority: Authority, initialContext?: Label): SessionFlow {
	const release = setup.release;
	const board = setup.asks ?? new AskBoard({ rows: setup.store.asks });
	const ask = release && createHumanPrimitives({ channel: "host", answer: releaseThroughAsks(board, recorder, release), authority: authority.forCall({ approved: false }) }).ask;
	return new SessionFlow({
		session: recorder.session,
		workspace: setup.workspace,
		registry: setup.registry,
		ceiling: authority.ceiling,
		redactor: setup.redactor,
		fileLabels: setup.store,
		...(setup.settings.secret_files ? { secretFiles: setup.settings.secret_files } : {}),
		...(setup.settings.redact_model_context ? { redactModelContext: setup.settings.redact_model_context } : {}),
		...(initialContext ? { initialContext } : {}),
		record: async (decision) => {
			const { call_id, ...data } = decision;
			// Asked for together, so the event and its record share one commit (in this order).
			await Promise.all([recorder.emit("flow.decided", decision), recorder.audit("flow.decided", data, call_id)]);
		},
		...(ask
			? {
					askRelease: async (request, signal) => {
						try {
							return (await ask(request, signal)) === true;
						} catch {
							// A refused human:host, a throwing callback or an aborted wait: nothing is released.
							return false;
						}
					},
				}
			: {}),
	});
}
