/**
 * What keeps a task run from going on by itself: effects of its session whose outcome nobody knows
 * (a crash after dispatch) and commands accepted but never finished. Each stays until the host
 * acknowledges it with `run.resolved` in the audit; the store's rows are never rewritten.
 */
import type { RunCommandRow, Store, TaskRunRow } from "../store/store.js";

/** An effect that may or may not have happened. */
export interface UnknownEffect {
	operation: string;
	call_id: string;
	kind: string;
	resource: string;
	/** Why nobody knows, from the outcome recovery recorded. */
	why: string;
}

export interface RunAttention {
	unknownEffects: UnknownEffect[];
	/** Commands accepted and never finished: the process stopped while they ran. */
	interrupted: RunCommandRow[];
	/** Operation ids and command ids the host has acknowledged. */
	acknowledged: { operations: Set<string>; commands: Set<string> };
}

/** The run's open issues; `running` names commands this process is running now (not interrupted). */
export async function runAttention(store: Store, run: TaskRunRow, running: ReadonlySet<string>): Promise<RunAttention> {
	const acknowledged = await acknowledgements(store, run);
	const unknown = await store.listOperations({ session: run.session, states: ["unknown"] });
	const unknownEffects = unknown
		.filter((op) => !acknowledged.operations.has(op.id))
		.map((op) => ({ operation: op.id, call_id: op.call_id, kind: op.kind, resource: op.resource, why: whyUnknown(op.outcome) }));
	// A live process running the run's session (this one or another on the same state dir) is still running its command.
	const runningElsewhere = (await store.sessionHolder(run.session)) !== undefined;
	const interrupted = (await store.listRunCommands(run.id)).filter(
		(c) => c.state === "accepted" && !runningElsewhere && !running.has(c.command_id) && !acknowledged.commands.has(c.command_id),
	);
	return { unknownEffects, interrupted, acknowledged };
}

/** One line for the run's `attention` column; undefined when nothing is open. */
export function describeAttention(a: Pick<RunAttention, "unknownEffects" | "interrupted">): string | undefined {
	const parts = [
		...a.unknownEffects.map((e) => `unknown effect ${e.kind} ${e.resource} (operation ${e.operation}, call ${e.call_id}): ${e.why}`),
		...a.interrupted.map((c) => `command ${c.command_id} (${c.kind}) was accepted but never finished`),
	];
	return parts.length === 0 ? undefined : parts.join("; ");
}

async function acknowledgements(store: Store, run: TaskRunRow): Promise<RunAttention["acknowledged"]> {
	const operations = new Set<string>();
	const commands = new Set<string>();
	for (const record of await store.listAudit({ session: run.session })) {
		if (record.kind !== "run.resolved" || record.data.run !== run.id) continue;
		for (const id of stringList(record.data.operations)) operations.add(id);
		for (const id of stringList(record.data.commands)) commands.add(id);
	}
	return { operations, commands };
}

function stringList(value: unknown): string[] {
	return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function whyUnknown(outcome: Record<string, unknown> | undefined): string {
	const by = outcome?.by ?? outcome?.error ?? outcome?.reason;
	return typeof by === "string" && by !== "" ? by : "its outcome was not recorded";
}
