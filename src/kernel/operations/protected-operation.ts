/**
 * Runs one effectful primitive as a protected operation: a durable intent before anything is
 * dispatched, a durable "dispatched" mark right before the provider is called, and a settlement
 * (state, effect audit record and event in one store transaction) once the effect is done, durable
 * before the primitive returns or, for a call whose writes are deferred, with the call's commit.
 * Refused or cancelled before dispatch, the operation is abandoned: certified not started, and the
 * caller gives back what it reserved.
 */
import { crashPoint } from "../../store/fault-injection.js";
import type { EffectKind, EffectSink } from "../effects.js";
import type { BeforeImage, OperationIntent, OperationKind, SettledState } from "./operation-types.js";

/** The durable side of protected operations, bound to one session (and turn) by the runtime. */
export interface OperationLog {
	/** Commits the intent (state prepared) and the before-image; returns the operation id. */
	prepare(intent: Omit<OperationIntent, "id" | "session" | "turn" | "created_at">, beforeImage?: BeforeImage): Promise<string>;
	/** Commits prepared → dispatched. */
	dispatched(id: string): Promise<void>;
	/**
	 * Commits the settlement (or, for a call whose writes are deferred, queues it for the call's
	 * commit). With `effect`, its audit record is kind `effect` (and an effect.recorded event names
	 * it); without, a kind `operation.settled` record.
	 */
	settle(id: string, state: SettledState, outcome: Record<string, unknown>, effect?: { call_id: string; effect: EffectKind; resource: string; data: Record<string, unknown> }): Promise<void>;
}

/** How a dispatch ended, as evidence: committed (it happened), failed (certainly not), unknown (may have). */
export interface Settled {
	state: "committed" | "failed" | "unknown";
	/** The effect record's details; absent when nothing observable was done (a failed write). */
	effect?: Record<string, unknown>;
	/** Details for the operation row. */
	outcome?: Record<string, unknown>;
}

export interface ProtectedSpec<T> {
	kind: OperationKind;
	callId: string;
	resource: string;
	intent: Record<string, unknown>;
	reserved: Record<string, number>;
	beforeImage?: BeforeImage;
	/** Right before dispatch: throws to refuse (the operation is then abandoned, certified not started). */
	revalidate?: () => void;
	dispatch: () => Promise<T>;
	/** What a result means. */
	settled: (result: T) => Settled;
	/** What an error thrown by dispatch means. */
	errored: (err: unknown) => Settled;
}

/**
 * Without a log (kernel unit tests, benchmarks), the same steps run without durable states: the
 * effect is recorded through `recordEffect` as before.
 */
export async function runProtected<T>(log: OperationLog | undefined, recordEffect: EffectSink, spec: ProtectedSpec<T>): Promise<T> {
	const effectOf = (settled: Settled) =>
		settled.effect === undefined ? undefined : { call_id: spec.callId, effect: spec.kind, resource: spec.resource, data: settled.effect };
	if (!log) {
		spec.revalidate?.();
		let result: T;
		try {
			result = await spec.dispatch();
		} catch (err) {
			const effect = effectOf(spec.errored(err));
			if (effect) await recordEffect(effect);
			throw err;
		}
		const effect = effectOf(spec.settled(result));
		if (effect) await recordEffect(effect);
		return result;
	}

	const id = await log.prepare({ call_id: spec.callId, kind: spec.kind, resource: spec.resource, intent: spec.intent, reserved: spec.reserved }, spec.beforeImage);
	crashPoint("operation.prepared");
	try {
		spec.revalidate?.();
	} catch (err) {
		await log.settle(id, "abandoned", { reason: err instanceof Error ? err.message : String(err) });
		throw err;
	}
	await log.dispatched(id);
	crashPoint("operation.dispatched");
	let result: T;
	try {
		result = await spec.dispatch();
	} catch (err) {
		const settled = spec.errored(err);
		crashPoint("operation.performed");
		const outcome = { ...(settled.outcome ?? {}), error: err instanceof Error ? err.message : String(err) };
		// Its crash point, operation.settled, is the log's: where the settlement is durable.
		await log.settle(id, settled.state, outcome, effectOf(settled));
		throw err;
	}
	crashPoint("operation.performed");
	const settled = spec.settled(result);
	await log.settle(id, settled.state, settled.outcome ?? {}, effectOf(settled));
	return result;
}
