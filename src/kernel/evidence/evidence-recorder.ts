/**
 * The one writer of evidence for a session: every event and audit record passes the redactor
 * and is committed to the store before it is handed to the host.
 *
 * A deferring view (deferring()) writes the same evidence without waiting for each commit: its
 * writes are queued in order and commit together at the next barrier (durable(), or any write
 * that must be durable before its caller goes on, such as an operation's intent), and the host
 * hears each event once the commit holding it is done. So the writes of one call cost one commit
 * where the call needs them durable, not one each.
 */
import { randomUUID } from "node:crypto";
import { crashPoint } from "../../store/fault-injection.js";
import type { OperationSettlement, Store } from "../../store/store.js";
import type { EffectRecord } from "../effects.js";
import type { Label } from "../flow/label.js";
import type { Redactor } from "../flow/redaction-types.js";
import type { OperationLog } from "../operations/protected-operation.js";
import type { AuditInput, AuditKind } from "./audit-types.js";
import type { AnyWardenEvent, EventKind, EventPayloads, WardenEvent } from "./event-types.js";
import { toAuditRecord } from "./store-rows.js";

export type EventListener = (event: AnyWardenEvent) => void;

const DEFERRED = { deferred: true } as const;

/** What a deferring view shares with the recorder it came from. */
interface Shared {
	clock: { turn: number };
}

export class EvidenceRecorder {
	private readonly clock: { turn: number };
	/** A deferring view's writes not yet known durable (undefined: every write is awaited). */
	private readonly outstanding: Promise<unknown>[] | undefined;
	/** A deferring view settled an operation (an effect in the world) since its last barrier. */
	private settledSinceBarrier = false;

	constructor(
		private readonly store: Store,
		private readonly redactor: Redactor,
		readonly session: string,
		private readonly listener: EventListener,
		shared?: Shared,
	) {
		this.clock = shared?.clock ?? { turn: 0 };
		this.outstanding = shared ? [] : undefined;
	}

	setTurn(turn: number): void {
		this.clock.turn = turn;
	}

	get currentTurn(): number {
		return this.clock.turn;
	}

	/** The same recorder (session, turn, listener) whose writes are deferred until durable() or another barrier. */
	deferring(): EvidenceRecorder {
		return new EvidenceRecorder(this.store, this.redactor, this.session, this.listener, { clock: this.clock });
	}

	/**
	 * Resolves once everything this recorder (and any other writer of the store) asked for is
	 * durable and the host has heard this recorder's events; rejects with the first of its
	 * deferred writes that the store refused.
	 */
	async durable(): Promise<void> {
		this.settledSinceBarrier = false;
		await this.store.barrier();
		if (!this.outstanding || this.outstanding.length === 0) return;
		await Promise.all(this.outstanding.splice(0));
	}

	/**
	 * A barrier only where this view settled an operation since the last one: an effect in the world
	 * is on record when the call that made it ends. A call that changed nothing outside the process
	 * (a read) leaves its evidence for the next barrier, which comes before anything derived from it
	 * leaves the process (the model request, an ask, the turn's end) or within the store's deferral
	 * deadline.
	 */
	async durableIfSettled(): Promise<void> {
		if (this.settledSinceBarrier) await this.durable();
	}

	/**
	 * Where a deferring view keeps a deferred write of a row of its own (a tool outcome's memory
	 * record), so durable() reports it with the rest; undefined for a recorder that awaits each write.
	 */
	get deferredWrites(): ((written: Promise<unknown>) => void) | undefined {
		return this.outstanding ? (written) => this.track(written) : undefined;
	}

	/** A deferred write, kept until durable() reports it; its failure is not an unhandled rejection meanwhile. */
	private track(written: Promise<unknown>): void {
		written.catch(() => {});
		this.outstanding!.push(written);
	}

	async emit<K extends EventKind>(kind: K, payload: EventPayloads[K], turn = this.clock.turn): Promise<WardenEvent<K>> {
		const event = {
			kind,
			session: this.session,
			turn,
			time: new Date().toISOString(),
			payload: this.redactor.redact(payload),
		} as WardenEvent<K>;
		if (this.outstanding) {
			this.track(this.store.appendEvent(event as AnyWardenEvent, DEFERRED).then(() => this.listener(event as AnyWardenEvent)));
			return event;
		}
		await this.store.appendEvent(event as AnyWardenEvent);
		this.listener(event as AnyWardenEvent);
		return event;
	}

	/**
	 * Hands the host an event another recorder already committed (a sub-agent's, stamped with its
	 * lineage), in the same synchronous step after that commit as this recorder's own events, so the
	 * host hears the parent's and the child's events in the order they were committed.
	 */
	relay(event: AnyWardenEvent): void {
		this.listener(event);
	}

	/** Chains one record; a deferring view resolves before it is durable (durable() reports it). */
	async audit(kind: AuditKind, data: Record<string, unknown>, callId?: string, turn = this.clock.turn): Promise<void> {
		const input = this.auditInput(kind, data, callId, turn);
		if (this.outstanding) this.track(this.store.appendAudit(input, DEFERRED));
		else await this.store.appendAudit(input);
	}

	private auditInput(kind: AuditKind, data: Record<string, unknown>, callId: string | undefined, turn: number): AuditInput {
		const input: AuditInput = { session: this.session, turn, kind, data: this.redactor.redact(data) };
		if (callId !== undefined) input.call_id = callId;
		return input;
	}

	/** A value as the redactor leaves it, for evidence kept in rows of its own (an ask a surface is shown). */
	redacted<T>(value: T): T {
		return this.redactor.redact(value);
	}

	/** Persists one conversation message, redacted like every other piece of evidence. */
	async message(message: unknown, label?: Label): Promise<void> {
		const redacted = this.redactor.redact(message);
		if (this.outstanding) this.track(this.store.appendMessage(this.session, redacted, label, DEFERRED));
		else await this.store.appendMessage(this.session, redacted, label);
	}

	/** Effects get their own audit record, linked to the call, and an event naming that record. */
	async effect(effect: EffectRecord): Promise<void> {
		// Awaited even in a deferring view: the event names the record's seq, known once it is chained.
		const input = this.auditInput("effect", { effect: effect.effect, resource: effect.resource, ...effect.data }, effect.call_id, this.clock.turn);
		const record = toAuditRecord(await this.store.appendAudit(input));
		await this.emit("effect.recorded", {
			call_id: effect.call_id,
			effect: effect.effect,
			resource: effect.resource,
			audit_seq: record.seq,
		});
	}

	/**
	 * The durable states of this session's protected operations. A settlement with an effect commits
	 * the operation's state, the `effect` audit record and the effect.recorded event in one
	 * transaction; the host hears the event only after that commit. The intent and the dispatch mark
	 * are always awaited (nothing is dispatched before both are durable); a deferring view's
	 * settlement commits with the rest of the call at its next barrier (a crash before it leaves the
	 * operation dispatched, for recovery to reconcile).
	 */
	operationLog(): OperationLog {
		return {
			prepare: async (intent, beforeImage) => {
				const id = `op_${randomUUID()}`;
				await this.store.prepareOperation(
					{
						...intent,
						// A command's text is its resource: it may carry a token.
						resource: this.redactor.redactText(intent.resource),
						intent: this.redactor.redact(intent.intent),
						id,
						session: this.session,
						turn: this.clock.turn,
						created_at: new Date().toISOString(),
					},
					beforeImage,
				);
				return id;
			},
			dispatched: (id) => this.store.markOperationDispatched(id),
			settle: async (id, state, outcome, effect) => {
				const turn = this.clock.turn;
				const event = effect
					? ({
							kind: "effect.recorded",
							session: this.session,
							turn,
							time: new Date().toISOString(),
							payload: this.redactor.redact({ call_id: effect.call_id, effect: effect.effect, resource: effect.resource, audit_seq: 0 }),
						} as WardenEvent<"effect.recorded">)
					: undefined;
				const settlement: OperationSettlement = {
					state,
					outcome: this.redactor.redact(outcome),
					audit: effect
						? {
								session: this.session,
								turn,
								kind: "effect",
								call_id: effect.call_id,
								data: this.redactor.redact({ effect: effect.effect, resource: effect.resource, ...effect.data, operation: id, state }),
							}
						: {
								session: this.session,
								turn,
								kind: state === "abandoned" ? "operation.abandoned" : "operation.settled",
								data: this.redactor.redact({ operation: id, state, ...outcome }),
							},
					...(event ? { events: [event as AnyWardenEvent] } : {}),
				};
				const written = this.store.settleOperation(id, settlement, this.outstanding ? DEFERRED : undefined).then((record) => {
					if (event) {
						if (record) event.payload.audit_seq = record.seq;
						this.listener(event as AnyWardenEvent);
					}
					crashPoint("operation.settled");
				});
				if (this.outstanding) {
					this.settledSinceBarrier = true;
					this.track(written);
				} else await written;
			},
		};
	}
}
