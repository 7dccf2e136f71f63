/**
 * Which files an undo puts back, decided from the recorded operations alone: per path, the target's
 * last change must still be what the file holds, and the target's first change kept the content to
 * restore. Nothing here touches the workspace except through the probe the caller passes.
 */
import type { OperationRow } from "../kernel/operations/operation-types.js";
import type { SessionRow, Store } from "../store/store.js";
import { type RefusedFile, UndoTargetError, type UndoTarget } from "./undo-types.js";
import { toOperationRows } from "../kernel/evidence/store-rows.js";

/** A workspace file's current sha256, or null when nothing is there; throws when it cannot be read. */
export type FileProbe = (path: string) => Promise<string | null>;

export interface PlannedRestore {
	path: string;
	action: "written" | "deleted";
	/** The target's first change to the path, whose before-image is restored. */
	restores: string;
	/** The text to write back (action `written`). */
	content?: string;
	/** What the file must still hold when the restore runs: the last change's result (null: absent). */
	expected: string | null;
	/** The last change, for a refusal's wording. */
	last: { call: string; verb: "wrote" | "deleted" };
}

export interface UndoPlan {
	target: { session: string; call?: string };
	workspace: string;
	restores: PlannedRestore[];
	refused: RefusedFile[];
	unchanged: string[];
}

/** States in which a change may or may not have happened: such a path is never restored. */
const PENDING = new Set(["prepared", "dispatched", "unknown"]);

export async function planUndo(store: Store, target: UndoTarget, probeFor: (workspace: string) => FileProbe): Promise<UndoPlan> {
	const { session, call } = await resolveTarget(store, target);
	const row = (await store.getSession(session))!;
	const operations = await targetOperations(store, row, call);
	const probe = probeFor(row.workspace);

	const byPath = new Map<string, OperationRow[]>();
	for (const op of operations) {
		if (op.kind !== "fs.write" && op.kind !== "fs.delete") continue;
		if (op.state !== "committed" && !PENDING.has(op.state)) continue;
		const path = typeof op.intent.path === "string" ? op.intent.path : op.resource.replace(/^fs:/, "");
		byPath.set(path, [...(byPath.get(path) ?? []), op]);
	}
	// Newest first: the path whose last change is most recent comes first.
	const paths = [...byPath.entries()].sort(([, a], [, b]) => (a.at(-1)!.created_at < b.at(-1)!.created_at ? 1 : -1));

	const plan: UndoPlan = { target: call === undefined ? { session } : { session, call }, workspace: row.workspace, restores: [], refused: [], unchanged: [] };
	for (const [path, changes] of paths) {
		const outcome = await planPath(store, probe, path, changes);
		if ("reason" in outcome) plan.refused.push(outcome);
		else if ("unchanged" in outcome) plan.unchanged.push(path);
		else plan.restores.push(outcome);
	}
	return plan;
}

/** `<path> changed since call_1_2_1 wrote it (now 1a2b…, expected 3c4d…)`, or null when it has not. */
export function changedSince(restore: Pick<PlannedRestore, "path" | "expected" | "last">, current: string | null): string | null {
	if (current === restore.expected) return null;
	return `${restore.path} changed since ${restore.last.call} ${restore.last.verb} it (now ${short(current)}, expected ${short(restore.expected)}); not restored`;
}

async function planPath(store: Store, probe: FileProbe, path: string, changes: OperationRow[]): Promise<PlannedRestore | RefusedFile | { unchanged: true }> {
	const pending = changes.find((op) => op.state !== "committed");
	if (pending) return { path, reason: `${path} cannot be restored: the change by ${pending.call_id} has no known outcome (${pending.state}); not restored` };
	const first = changes[0]!;
	const last = changes.at(-1)!;
	if (first.kind === "fs.delete" && first.intent.type === "symlink") {
		return { path, reason: `${path} was a symbolic link when ${first.call_id} deleted it; undo recreates regular files only; not restored` };
	}
	const restore: PlannedRestore = {
		path,
		action: "written",
		restores: first.id,
		expected: last.kind === "fs.write" ? String(last.intent.sha256_after) : null,
		last: { call: last.call_id, verb: last.kind === "fs.write" ? "wrote" : "deleted" },
	};
	let current: string | null;
	try {
		current = await probe(path);
	} catch (err) {
		return { path, reason: `${path} cannot be checked: ${err instanceof Error ? err.message : String(err)}; not restored` };
	}
	const before = first.kind === "fs.write" ? (first.intent.sha256_before as string | null) : String(first.intent.sha256);
	// Already as it was before the target (undone once already): nothing to restore, nothing to refuse.
	if (before === current) return { unchanged: true };
	const changed = changedSince(restore, current);
	if (changed) return { path, reason: changed };
	if (before === null) return { ...restore, action: "deleted" };
	const blob = await store.getBlob(before);
	// Evidence never holds secrets: a secret file's earlier content was never stored.
	if (!blob) return { path, reason: `${path} cannot be restored: no before-image was kept for ${first.call_id}'s change (Warden keeps none for secret content); not restored` };
	const text = blob.toString("utf8");
	if (!Buffer.from(text, "utf8").equals(blob)) {
		return { path, reason: `${path} cannot be restored: its earlier content is not UTF-8 text, which fs.write cannot put back byte for byte; not restored` };
	}
	return { ...restore, content: text };
}

function short(sha: string | null): string {
	return sha === null ? "absent" : sha.slice(0, 12);
}

async function resolveTarget(store: Store, target: UndoTarget): Promise<{ session: string; call?: string }> {
	if (!("call" in target)) {
		if (!(await store.getSession(target.session))) throw new UndoTargetError(`no session ${target.session}`);
		return { session: target.session };
	}
	const { call } = target;
	if (target.session !== undefined) {
		if (!(await store.getSession(target.session))) throw new UndoTargetError(`no session ${target.session}`);
		const held = (await store.listOperations({ session: target.session, call_id: call, limit: 1 })).length > 0 || (await store.listAudit({ session: target.session })).some((r) => r.call_id === call);
		if (!held) throw new UndoTargetError(`no call ${call} in session ${target.session}`);
		return { session: target.session, call };
	}
	const sessions = new Set((await store.listOperations({ call_id: call })).map((op) => op.session));
	if (sessions.size === 0) for (const r of await store.listAudit()) if (r.call_id === call) sessions.add(r.session);
	if (sessions.size === 0) throw new UndoTargetError(`no call ${call} in the recorded evidence`);
	if (sessions.size > 1) throw new UndoTargetError(`call ${call} is in ${sessions.size} sessions; pass --session with one of: ${[...sessions].join(", ")}`);
	return { session: [...sessions][0]!, call };
}

/** The sub-agent sessions a session (or one call of it) spawned, at any depth. */
export async function subAgentSessions(store: Store, session: string, call: string | undefined): Promise<string[]> {
	const all = await store.listSessions();
	const sessions: string[] = [];
	const visit = (parent: string, parentCall: string | undefined) => {
		for (const s of all) {
			if (s.parent_session === parent && (parentCall === undefined || s.parent_call === parentCall) && !sessions.includes(s.id)) {
				sessions.push(s.id);
				visit(s.id, undefined);
			}
		}
	};
	visit(session, call);
	return sessions;
}

/**
 * The target's operations, oldest first: the session's (or the call's) own, and those of the
 * sub-agent sessions it spawned, at any depth — their edits were the target's work too.
 */
async function targetOperations(store: Store, row: SessionRow, call: string | undefined): Promise<OperationRow[]> {
	const sessions = await subAgentSessions(store, row.id, call);
	const ops = await store.listOperations(call === undefined ? { session: row.id } : { session: row.id, call_id: call });
	for (const s of sessions) ops.push(...(await store.listOperations({ session: s })));
	// Stable: within one session the store's order stands where two share a timestamp.
	return toOperationRows(ops).map((op, i) => ({ op, i })).sort((a, b) => (a.op.created_at < b.op.created_at ? -1 : a.op.created_at > b.op.created_at ? 1 : a.i - b.i)).map((x) => x.op);
}
