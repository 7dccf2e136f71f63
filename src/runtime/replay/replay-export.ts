/**
 * Writes one session's evidence as replay lines: the options it ran under, each turn's input, the
 * model's responses (from the stored assistant messages), the decisions and effects, and the
 * before-images of the files it changed. Everything comes from the store, already redacted; the
 * workspace is never read, so nothing the store did not keep can leak into the file.
 */
import type { AuditRecord } from "../../kernel/evidence/audit-types.js";
import type { AnyWardenEvent, WardenEvent } from "../../kernel/evidence/event-types.js";
import type { Message, ModelResponse } from "../../models/provider.js";
import type { Store } from "../../store/store.js";
import { builtinTools, ToolRegistry } from "../../tools/registry.js";
import { sealLines } from "./replay-chain.js";
import { auditItems, callStep } from "./replay-evidence.js";
import {
	type DecisionItem,
	type EffectItem,
	type FileItem,
	type InputItem,
	type ModelItem,
	REPLAY_KIND,
	REPLAY_SCHEMA,
	ReplayError,
	type ReplayHeader,
	type ReplaySessionOptions,
} from "./replay-format.js";
import { toAuditRecords, toWardenEvents } from "../../kernel/evidence/store-rows.js";

const NO_BLOB = "the store kept no before-image of this content (secret content is never kept)";

export async function exportReplay(store: Store, sessionId: string, now = new Date()): Promise<string[]> {
	const session = await store.getSession(sessionId);
	if (!session) throw new ReplayError(`no session ${sessionId} in this state dir`);
	const audit = toAuditRecords(await store.listAudit({ session: sessionId }));
	if (audit.some((r) => r.kind === "subagent.started")) {
		throw new ReplayError(`session ${sessionId} spawned sub-agents; replaying sessions with sub-agents is not supported yet`);
	}
	const started = audit.find((r) => r.kind === "session.started");
	if (!started) throw new ReplayError(`session ${sessionId} has no session.started audit record; its options are unknown`);
	const events = toWardenEvents(await store.listEvents(sessionId));
	const messages = (await store.listMessages(sessionId)).map((m) => m.message as Message);

	const models = modelItems(sessionId, events, messages);
	const evidence = auditItems(audit);
	const header: ReplayHeader = {
		replay_schema: REPLAY_SCHEMA,
		kind: REPLAY_KIND,
		session: sessionId,
		exported_at: now.toISOString(),
		workspace: session.workspace,
		mode: session.mode,
		model: session.model,
		redacted: true,
		options: sessionOptions(started, events, messages),
		tools: new ToolRegistry(builtinTools()).list().map((t) => t.name),
	};
	const records: Record<string, unknown>[] = [{ ...header }];
	for (const file of await fileItems(store, evidence)) records.push({ ...file });

	const inputs = events.filter((e): e is WardenEvent<"turn.started"> => e.kind === "turn.started");
	const placed = new Set<DecisionItem | EffectItem>();
	for (const input of inputs) {
		const item: InputItem = { type: "input", turn: input.turn, text: input.payload.input };
		const ended = events.find((e): e is WardenEvent<"turn.completed"> => e.kind === "turn.completed" && e.turn === input.turn);
		if (ended) item.status = ended.payload.status;
		records.push({ ...item });
		const turnEvidence = evidence.filter((e) => e.turn === input.turn);
		for (const model of models.filter((m) => m.turn === input.turn)) {
			records.push({ ...model });
			for (const e of turnEvidence.filter((x) => callStep(x.call) === model.step)) {
				records.push({ ...e });
				placed.add(e);
			}
		}
		// Evidence of the turn whose step has no model line (it should not happen) still goes in, at the turn's end.
		for (const e of turnEvidence.filter((x) => !placed.has(x))) {
			records.push({ ...e });
			placed.add(e);
		}
	}
	return sealLines(records);
}

/** Each model response, rebuilt from its assistant message and numbered by its model.responded event. */
function modelItems(sessionId: string, events: readonly AnyWardenEvent[], messages: readonly Message[]): ModelItem[] {
	const responded = events.filter((e): e is WardenEvent<"model.responded"> => e.kind === "model.responded");
	const assistant = messages.filter((m): m is Extract<Message, { role: "assistant" }> => m.role === "assistant");
	if (responded.length !== assistant.length) {
		throw new ReplayError(`session ${sessionId} records ${responded.length} model response(s) but ${assistant.length} assistant message(s); its evidence is incomplete`);
	}
	return responded.map((event, i) => {
		const message = assistant[i]!;
		const response: ModelResponse = {
			text: message.content,
			toolCalls: (message.tool_calls ?? []).map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
		};
		if (event.payload.usage) response.usage = event.payload.usage;
		return { type: "model", turn: event.turn, step: event.payload.step, response };
	});
}

function sessionOptions(started: AuditRecord, events: readonly AnyWardenEvent[], messages: readonly Message[]): ReplaySessionOptions {
	const d = started.data;
	const rules = Array.isArray(d.rules) ? (d.rules as { text: string; outcome: "allow" | "ask" | "deny"; source: string }[]) : [];
	const options: ReplaySessionOptions = {
		rules: rules.map((r) => ({ rule: r.text, outcome: r.outcome, source: r.source })),
		run_deny: Array.isArray(d.run_deny) ? (d.run_deny as string[]) : [],
	};
	const grants = Array.isArray(d.grants) ? (d.grants as Record<string, unknown>[]) : [];
	// The mode's preset is what a session holds when the host gave no grants; only the host's are repeated.
	if (grants.some((g) => g.issuer === "host")) {
		options.grants = grants
			.filter((g) => g.issuer === "host")
			.map((g) => {
				const spec: Record<string, unknown> = { id: g.id, resource: g.resource, rights: g.rights, effect: g.effect };
				for (const key of ["constraints", "expires_at", "uses"]) if (g[key] !== undefined) spec[key] = g[key];
				return spec;
			});
	}
	const ceiling = (d.ceiling as { manifest?: Record<string, unknown> } | undefined)?.manifest;
	if (ceiling) {
		const { version: _, ...spec } = ceiling;
		options.ceiling = spec;
	}
	if (d.budget && typeof d.budget === "object") options.budget = d.budget as ReplaySessionOptions["budget"] & object;
	const flow = d.flow as { sinks?: { source?: string }[]; secret_files?: string[] } | undefined;
	const hostSinks = (flow?.sinks ?? []).filter((s) => typeof s.source !== "string" || !s.source.startsWith("default:"));
	if (hostSinks.length) options.flow_sinks = hostSinks as Record<string, unknown>[];
	if (flow?.secret_files?.length) options.secret_files = flow.secret_files;
	const stopped = events.find((e): e is WardenEvent<"turn.completed"> => e.kind === "turn.completed" && e.payload.status === "max_steps");
	if (stopped) options.max_steps = stopped.payload.steps;
	if (messages[0]?.role === "system") options.system_prompt = messages[0].content;
	return options;
}

/** The files the session wrote or deleted: as they were before its first change, and as it left them. */
async function fileItems(store: Store, evidence: readonly (DecisionItem | EffectItem)[]): Promise<FileItem[]> {
	const files = new Map<string, FileItem>();
	for (const e of evidence) {
		if (e.type !== "effect" || (e.effect !== "fs.write" && e.effect !== "fs.delete") || !e.resource.startsWith("fs:")) continue;
		if (e.state !== undefined && e.state !== "committed") continue;
		const path = e.resource.slice("fs:".length);
		const before = e.effect === "fs.write" ? (e.sha256_before ?? null) : (e.sha256 ?? null);
		const after = e.effect === "fs.write" ? (e.sha256_after ?? null) : null;
		const known = files.get(path);
		if (known) known.end_sha256 = after;
		else files.set(path, { type: "file", path, sha256: before, end_sha256: after });
	}
	for (const file of files.values()) {
		if (file.sha256 === null) continue;
		const blob = await store.getBlob(file.sha256);
		if (blob) file.content_b64 = blob.toString("base64");
		else {
			file.content = null;
			file.reason = NO_BLOB;
		}
	}
	// By path: the order of effects within one step depends on which tool finished first.
	return [...files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
