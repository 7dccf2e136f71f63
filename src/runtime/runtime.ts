/**
 * The embedding API's entry point: one state directory, one evidence store, one policy engine,
 * and the sessions that run governed turns against them.
 */
import { randomUUID } from "node:crypto";
import { homedir } from "node:os";
import { PermissionEngine } from "../kernel/admission/permission-engine.js";
import { parseRule } from "../kernel/admission/rules.js";
import type { PermissionMode, PermissionRule } from "../kernel/admission/types.js";
import { PERMISSION_MODES } from "../kernel/admission/types.js";
import type { AuditRecord, AuditVerifyResult } from "../kernel/evidence/audit-types.js";
import type { AnyWardenEvent } from "../kernel/evidence/event-types.js";
import { EVENT_SCHEMA_VERSION } from "../kernel/evidence/event-types.js";
import { EvidenceRecorder } from "../kernel/evidence/evidence-recorder.js";
import { createRedactor } from "../kernel/flow/redaction.js";
import { resolveRealPath } from "../kernel/real-path.js";
import type { Redactor } from "../kernel/flow/redaction-types.js";
import { createModel } from "../models/model-spec.js";
import type { Message } from "../models/provider.js";
import { realDirectory } from "../providers/directory-probe.js";
import { resolveStateDir } from "../store/state-dir.js";
import { SqliteStore } from "../store/sqlite-store.js";
import type { SessionRow, Store } from "../store/store.js";
import { builtinTools, ToolRegistry } from "../tools/registry.js";
import { DEFAULT_TOOL_LIMITS } from "../tools/tool.js";
import { Session } from "./session.js";
import type { SessionOptions } from "./session-options.js";
import { defaultSystemPrompt } from "./system-prompt.js";

export interface RuntimeOptions {
	/** State directory; default from WARDEN_HOME, then the user's state home. */
	stateDir?: string;
	/** A store to use instead of opening SQLite in the state directory. */
	store?: Store;
	/** Environment for model specs, redaction of env secrets, and tool processes. */
	env?: NodeJS.ProcessEnv;
}

export interface OpenSessionOptions extends SessionOptions {
	/** Receives every event of the session, session-level ones included, after it is persisted. */
	onEvent?: (event: AnyWardenEvent) => void;
}

/** A host's mistake in how it opened a session or runtime: one line, meant for the user. */
export class RuntimeConfigError extends Error {
	override name = "RuntimeConfigError";
}

export class Runtime {
	private readonly sessions = new Set<Session>();
	private closed = false;

	private constructor(
		readonly stateDir: string,
		readonly store: Store,
		private readonly engine: PermissionEngine,
		private readonly redactor: Redactor,
		private readonly env: NodeJS.ProcessEnv,
	) {}

	static async open(options: RuntimeOptions = {}): Promise<Runtime> {
		const env = options.env ?? process.env;
		const stateDir = resolveStateDir(options.stateDir, env);
		const store = options.store ?? SqliteStore.open(stateDir);
		const engine = await PermissionEngine.create();
		return new Runtime(stateDir, store, engine, createRedactor({ env }), env);
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
		const mode: PermissionMode = options.mode ?? "workspace-write";
		if (!PERMISSION_MODES.includes(mode)) {
			throw new RuntimeConfigError(`unknown mode "${mode}"; use one of ${PERMISSION_MODES.join(", ")}`);
		}
		const workspace = await realDirectory(options.workspace, "workspace");
		const model = typeof options.model === "string" ? await createModel(options.model, this.env) : options.model;
		const source = options.rulesSource ?? "host";
		const hostRules: PermissionRule[] = [
			...(options.rules?.deny ?? []).map((text) => parseRule(text, "deny", source)),
			...(options.rules?.ask ?? []).map((text) => parseRule(text, "ask", source)),
			...(options.rules?.allow ?? []).map((text) => parseRule(text, "allow", source)),
		];
		const runDenyRules = (options.runDeny ?? []).map((text) => parseRule(text, "deny", "run"));
		const maxSteps = options.maxSteps ?? 50;
		if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new RuntimeConfigError(`max steps must be a positive integer, got ${maxSteps}`);
		const modelTimeoutMs = options.modelTimeoutMs ?? 600_000;
		if (!Number.isInteger(modelTimeoutMs) || modelTimeoutMs < 1) {
			throw new RuntimeConfigError(`model timeout must be a positive number of milliseconds, got ${modelTimeoutMs}`);
		}

		const id = randomUUID();
		let turnListener: ((event: AnyWardenEvent) => void) | undefined;
		const recorder = new EvidenceRecorder(this.store, this.redactor, id, (event) => {
			turnListener?.(event);
			try {
				options.onEvent?.(event);
			} catch {
				// The event is already committed; a failing host callback must not cut the turn's evidence short.
			}
		});
		await this.store.createSession({ id, workspace, mode, model: model.spec, created_at: new Date().toISOString() });
		const systemPrompt = options.systemPrompt ?? defaultSystemPrompt(mode);
		const history: Message[] = [{ role: "system", content: systemPrompt }];
		await recorder.message(history[0]);
		await recorder.emit("session.started", { event_schema: EVENT_SCHEMA_VERSION, workspace, mode, model: model.spec, resumed: false }, 0);
		await recorder.audit(
			"session.started",
			{
				workspace,
				mode,
				model: model.spec,
				rules: hostRules.map((r) => ({ text: r.text, outcome: r.outcome, source: r.source })),
				run_deny: runDenyRules.map((r) => r.text),
			},
			undefined,
			0,
		);
		const session = new Session({
			recorder,
			store: this.store,
			model,
			tools: new ToolRegistry(builtinTools()),
			decider: this.engine,
			policy: { mode, workspace, home: this.env.HOME ?? homedir(), runDenyRules, hostRules, resolvePath: resolveRealPath },
			confirm: options.confirm,
			limits: { ...DEFAULT_TOOL_LIMITS, ...options.limits },
			maxSteps,
			modelTimeoutMs,
			env: this.env,
			history,
			setTurnListener: (listener) => {
				turnListener = listener;
			},
			onEnd: () => this.sessions.delete(session),
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

	sessionEvents(id: string): Promise<AnyWardenEvent[]> {
		return this.store.listEvents(id);
	}

	listAudit(filter?: { session?: string; limit?: number }): Promise<AuditRecord[]> {
		return this.store.listAudit(filter);
	}

	verifyAudit(): Promise<AuditVerifyResult> {
		return this.store.verifyAudit();
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
			await this.store.close();
		}
	}
}
