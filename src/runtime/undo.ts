/**
 * `warden undo`: puts back the files a session or one call changed, from the before-images its
 * operations kept. The restore is itself governed work: a new session (model `undo`) with one call
 * per file, each decided by the host, started, run through the kernel's fs primitives under an
 * authority holding exactly that file, and recorded as a protected operation with its own diff.
 * A memory record the target wrote is forgotten the same way, one call each, through the kernel's
 * memory.forget under a grant of exactly its resource (undo-memory-plan.ts decides which).
 */
import { randomUUID } from "node:crypto";
import { homedir } from "node:os";
import { Authority } from "../kernel/authority/authority.js";
import { issueGrant } from "../kernel/authority/capability.js";
import { type TaskCeiling, taskCeiling } from "../kernel/authority/task-ceiling.js";
import type { EventPayloads } from "../kernel/evidence/event-types.js";
import { EVENT_SCHEMA_VERSION } from "../kernel/evidence/event-types.js";
import { EvidenceRecorder } from "../kernel/evidence/evidence-recorder.js";
import type { Redactor } from "../kernel/flow/redaction-types.js";
import { FsPrimitiveError } from "../kernel/kernel-errors.js";
import { WRITE_REPLACE_MAX_BYTES } from "../kernel/kernel-fs.js";
import { createKernel } from "../kernel/kernel.js";
import type { MemoryBinding } from "../kernel/kernel-memory.js";
import { memoryResource } from "../kernel/authority/resource.js";
import { withRepositoryConfig } from "../kernel/protected/derived-registry.js";
import { ProtectedGuard } from "../kernel/protected/protected-guard.js";
import { defaultProtectedPaths, type ProtectedPaths } from "../kernel/protected/protected-paths.js";
import type { Store } from "../store/store.js";
import { memorySubject, type MemoryUndoPlan, type PlannedForget, planMemoryUndo } from "./undo-memory-plan.js";
import { sessionMemory } from "./session-memory.js";
import { changedSince, type FileProbe, type PlannedRestore, planUndo, type UndoPlan } from "./undo-plan.js";
import type { ForgottenRecord, RefusedFile, RestoredFile, UndoOptions, UndoResult, UndoTarget } from "./undo-types.js";

export * from "./undo-types.js";

export interface UndoDeps {
	store: Store;
	redactor: Redactor;
}

const UNDO_MODE = "workspace-write";
const UNDO_MODEL = "undo";

export async function undoChanges(deps: UndoDeps, target: UndoTarget, options: UndoOptions = {}): Promise<UndoResult> {
	const found = await planUndo(deps.store, target, kernelProbe);
	// What the repositories' configs name (core.hooksPath, include.path, …) is as protected as the registry.
	const registry = withRepositoryConfig(options.protectedPaths ?? defaultProtectedPaths(), found.workspace, homedir(), { rescan: true });
	const plan = withoutProtected(found, registry);
	const memory = await planMemoryUndo(deps.store, plan.target);
	if (options.dryRun) {
		return {
			target: plan.target,
			dry_run: true,
			restored: plan.restores.map(planned),
			forgotten: memory.forgets.map(plannedForget),
			refused: [...plan.refused, ...memory.refused],
			unchanged: [...plan.unchanged, ...memory.unchanged],
		};
	}
	return runRestores(deps, plan, memory, registry);
}

/**
 * A protected path (a git hook, .warden/, .envrc …) is never put back silently: what was there
 * before, or the removal of what the session created, runs later outside Warden either way, so the
 * person restores it by hand after looking at it. The fs primitives refuse it anyway.
 */
function withoutProtected(plan: UndoPlan, registry: ProtectedPaths): UndoPlan {
	const restores: PlannedRestore[] = [];
	const refused: RefusedFile[] = [...plan.refused];
	for (const r of plan.restores) {
		const hit = registry.match(r.path);
		if (hit === undefined) restores.push(r);
		else refused.push({ path: r.path, reason: `${r.path} is a protected path (${hit.rule.reason}; rule ${hit.rule.pattern} from ${hit.rule.source}): undo does not restore it on its own; check it and put it back by hand` });
	}
	return { ...plan, restores, refused };
}

function planned(r: PlannedRestore): RestoredFile {
	return { path: r.path, action: r.action, restores: r.restores };
}

function plannedForget(f: PlannedForget): ForgottenRecord {
	return { id: f.id, resource: f.resource, written_by: f.written_by, restored: f.restore };
}

/** A refusal found right before dispatch: the file changed between planning and its restore. */
class ChangedSinceError extends Error {}

async function runRestores(deps: UndoDeps, plan: UndoPlan, memoryPlan: MemoryUndoPlan, registry: ProtectedPaths | undefined): Promise<UndoResult> {
	const { store } = deps;
	const id = randomUUID();
	const effectSeqs = new Map<string, number>();
	const recorder = new EvidenceRecorder(store, deps.redactor, id, (event) => {
		if (event.kind === "effect.recorded") effectSeqs.set(event.payload.call_id, event.payload.audit_seq);
	});
	// The default ceiling: undo is bounded by the exact per-file grants, not by a manifest.
	const ceiling = taskCeiling();
	const { workspace } = plan;
	const described = plan.target.call === undefined ? `session ${plan.target.session}` : `call ${plan.target.call} of session ${plan.target.session}`;
	await store.createSession({ id, workspace, mode: UNDO_MODE, model: UNDO_MODEL, created_at: new Date().toISOString() });
	await recorder.emit("session.started", { event_schema: EVENT_SCHEMA_VERSION, workspace, mode: UNDO_MODE, model: UNDO_MODEL, resumed: false }, 0);
	await recorder.audit("session.started", { workspace, mode: UNDO_MODE, model: UNDO_MODEL, undo: plan.target, ceiling: { hash: ceiling.hash, manifest: ceiling.manifest }, grants: [] }, undefined, 0);

	const restored: RestoredFile[] = [];
	const forgotten: ForgottenRecord[] = [];
	const refused: RefusedFile[] = [...plan.refused, ...memoryPlan.refused];
	const unchanged = [...plan.unchanged, ...memoryPlan.unchanged];
	const turn = await store.nextTurn(id);
	recorder.setTurn(turn);
	let status: "ok" | "error" = "ok";
	await recorder.emit("turn.started", { input: `warden undo ${described}` });
	try {
		let n = 0;
		for (const restore of plan.restores) {
			const callId = `undo_${turn}_${++n}`;
			const outcome = await restoreOne({ recorder, ceiling, workspace, callId, reason: `warden undo of ${described} requested by the host`, registry }, restore);
			if ("reason" in outcome) refused.push(outcome);
			else {
				const seq = effectSeqs.get(callId);
				restored.push({ ...planned(restore), call: callId, ...(seq === undefined ? {} : { effect_seq: seq }) });
			}
		}
		const memory = sessionMemory(store.memory, recorder, workspace);
		for (const forget of memoryPlan.forgets) {
			const callId = `undo_${turn}_${++n}`;
			const outcome = await forgetOne({ recorder, ceiling, workspace, callId, reason: `warden undo of ${described} requested by the host`, registry }, memory, forget);
			if ("reason" in outcome) refused.push(outcome);
			else forgotten.push(outcome);
		}
		await recorder.emit("turn.completed", {
			status: "completed",
			steps: 0,
			text: `restored ${restored.length} file(s), forgot ${forgotten.length} memory record(s), refused ${refused.length}`,
		});
	} catch (err) {
		status = "error";
		await recorder.emit("turn.completed", { status: "error", steps: 0, error: `internal error: ${oneLine(err)}` });
		throw err;
	} finally {
		await recorder.audit("undo.completed", {
			target: plan.target,
			restored: restored.map((r) => ({ path: r.path, action: r.action, restores: r.restores, call: r.call })),
			...(forgotten.length > 0 ? { forgotten: forgotten.map((f) => ({ id: f.id, resource: f.resource, restored: f.restored, call: f.call })) } : {}),
			refused,
			unchanged,
		});
		await recorder.emit("session.ended", { status }, 0);
		await recorder.audit("session.ended", { status }, undefined, 0);
		await store.endSession(id, status, new Date().toISOString());
	}
	return { target: plan.target, dry_run: false, session: id, restored, forgotten, refused, unchanged };
}

interface RestoreCall {
	recorder: EvidenceRecorder;
	ceiling: TaskCeiling;
	workspace: string;
	callId: string;
	reason: string;
	/** Protected paths: the restore holds no clearance for any of them. */
	registry: ProtectedPaths | undefined;
}

type Grant = ReturnType<typeof issueGrant>;
type Kernel = ReturnType<typeof createKernel>;

/** What one undo call does inside its kernel: its output line, or a throw that refuses it. */
interface UndoCallBody<T> {
	args: Record<string, unknown>;
	grants: Grant[];
	/** Kernel options beyond the call's own (a protected-path guard, the memory binding, the operation log). */
	kernel: Pick<Parameters<typeof createKernel>[0], "protect" | "memory" | "operations">;
	run: (kernel: Kernel) => Promise<{ output: string; value: T }>;
	/** The one line a refusal says, from what was thrown. */
	refusal: (err: unknown) => string;
}

/**
 * One undo step as one governed call: proposed, decided by the host under exactly `grants`,
 * started, run through the kernel, and ended completed or failed, with the refusals the authority
 * and the protected-path guard recorded on the way.
 */
async function undoCall<T>(c: RestoreCall, body: UndoCallBody<T>): Promise<{ value: T } | { reason: string }> {
	const { recorder, callId } = c;
	const tool = "undo";
	await recorder.emit("tool.proposed", { call_id: callId, tool, arguments: body.args });
	const decided: EventPayloads["permission.decided"] = { call_id: callId, tool, decision: "allow", layer: "host-rule", reason: c.reason, ceiling: c.ceiling.hash };
	await recorder.emit("permission.decided", decided);
	await recorder.audit("permission.decided", { ...decided, arguments: body.args, mode: UNDO_MODE, grants: body.grants }, callId);
	await recorder.emit("tool.started", { call_id: callId, tool });
	const started = Date.now();
	const authority = new Authority({ grants: body.grants, ceiling: c.ceiling }).forCall({ approved: false });
	const kernel = createKernel({
		workspace: c.workspace,
		callId,
		signal: new AbortController().signal,
		recordEffect: (effect) => recorder.effect(effect),
		authority,
		...body.kernel,
	});
	let done: { output: string; value: T };
	try {
		done = await body.run(kernel);
	} catch (err) {
		for (const refusal of authority.refusals) await recorder.audit("authority.denied", refusal.toRecord(), callId);
		for (const refusal of body.kernel.protect?.refusals ?? []) await recorder.audit("protected.denied", refusal.toRecord(), callId);
		const reason = body.refusal(err);
		const durationMs = Date.now() - started;
		await recorder.emit("tool.failed", { call_id: callId, tool, duration_ms: durationMs, error: reason });
		await recorder.audit("tool.outcome", { tool, outcome: "failed", error: reason, duration_ms: durationMs }, callId);
		return { reason };
	}
	const durationMs = Date.now() - started;
	const bytes = Buffer.byteLength(done.output);
	await recorder.emit("tool.completed", { call_id: callId, tool, duration_ms: durationMs, output_bytes: bytes, truncated: false });
	await recorder.audit("tool.outcome", { tool, outcome: "completed", duration_ms: durationMs, output_bytes: bytes }, callId);
	return { value: done.value };
}

/** One file as one governed call: proposed, decided by the host, started, dispatched, and ended. */
async function restoreOne(c: RestoreCall, restore: PlannedRestore): Promise<RestoredFile | RefusedFile> {
	// Exactly the one file, with exactly the right the restore needs.
	const right = restore.action === "deleted" ? "delete" : "write";
	const grants = [issueGrant({ resource: `fs:${restore.path}`, rights: [right] }, "host", `session:${c.recorder.session}`, `undo:${c.callId}`)];
	const outcome = await undoCall(c, {
		args: { path: restore.path, restores: restore.restores },
		grants,
		kernel: { protect: new ProtectedGuard(c.registry ? { registry: c.registry } : {}), operations: c.recorder.operationLog() },
		run: async (kernel) => {
			// Checked again right before dispatch: the file may have changed since the plan was made.
			const changed = changedSince(restore, await kernelProbe(c.workspace)(restore.path));
			if (changed) throw new ChangedSinceError(changed);
			if (restore.action === "deleted") {
				await kernel.fs.delete(restore.path);
				return { output: `removed ${restore.path}: ${restore.restores} created it`, value: undefined };
			}
			const written = await kernel.fs.write(restore.path, restore.content ?? "");
			return { output: `restored ${restore.path} (${written.bytesWritten} bytes) to its content before ${restore.restores}`, value: undefined };
		},
		refusal: (err) => (err instanceof ChangedSinceError ? err.message : `${restore.path} could not be restored: ${oneLine(err)}; not restored`),
	});
	return "reason" in outcome ? { path: restore.path, reason: outcome.reason } : planned(restore);
}

/**
 * One memory record as one governed call: decided by the host under a grant of exactly its
 * resource (`delete`) and the resources of the records it restores (`write`), run through the
 * kernel's memory.forget, whose effect record commits with the change.
 */
async function forgetOne(c: RestoreCall, memory: MemoryBinding, forget: PlannedForget): Promise<ForgottenRecord | RefusedFile> {
	const restoreResources = new Set<string>();
	for (const id of forget.restore) {
		const row = await memory.rows.get(id);
		if (row) restoreResources.add(memoryResource(row.scope, row.namespace));
	}
	const holder = `session:${c.recorder.session}`;
	const grants = [
		issueGrant({ resource: forget.resource, rights: ["delete"] }, "host", holder, `undo:${c.callId}`),
		...[...restoreResources].map((resource, i) => issueGrant({ resource, rights: ["write"] }, "host", holder, `undo:${c.callId}:${i + 1}`)),
	];
	const subject = memorySubject(forget.id);
	const outcome = await undoCall(c, {
		args: { memory: forget.id, written_by: forget.written_by.call, restores: forget.restore },
		grants,
		kernel: { memory },
		run: async (kernel) => {
			const done = await kernel.memory!.forget({ id: forget.id, restore: forget.restore });
			const again = done.restored.length > 0 ? `; live again: ${done.restored.join(", ")}` : "";
			return { output: `forgot ${subject} (written by ${forget.written_by.call})${again}`, value: done };
		},
		refusal: (err) => `${subject} could not be forgotten: ${oneLine(err)}; not forgotten`,
	});
	if ("reason" in outcome) return { path: subject, reason: outcome.reason };
	return { ...plannedForget(forget), restored: outcome.value.restored, call: c.callId, effect_seq: outcome.value.auditSeq };
}

/**
 * A file's current sha256 through the kernel's fs.read, under an authority that may read exactly
 * that file; null when nothing is there. Reading records no effect.
 */
function kernelProbe(workspace: string): FileProbe {
	return async (path) => {
		const grants = [issueGrant({ resource: `fs:${path}`, rights: ["read"] }, "host", "warden-undo", "undo:check")];
		const kernel = createKernel({
			workspace,
			callId: "undo-check",
			signal: new AbortController().signal,
			recordEffect: async () => {
				throw new Error("a read records no effect");
			},
			authority: new Authority({ grants }).forCall({ approved: false }),
		});
		try {
			return (await kernel.fs.read(path, { maxBytes: WRITE_REPLACE_MAX_BYTES })).sha256;
		} catch (err) {
			if (isAbsent(err)) return null;
			throw err;
		}
	};
}

/** The fs primitives say "does not exist" (or that a parent is a file) for a path with nothing at it. */
function isAbsent(err: unknown): boolean {
	if (!(err instanceof FsPrimitiveError) || err.constructor !== FsPrimitiveError) return false;
	return err.message.endsWith(" does not exist") || err.message.endsWith(": a component of the path is not a directory");
}

function oneLine(err: unknown): string {
	const text = err instanceof Error ? err.message : String(err);
	return text.split("\n").find((l) => l.trim() !== "") ?? "";
}
