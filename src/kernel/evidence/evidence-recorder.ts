/**
 * The one writer of evidence for a session: every event and audit record passes the redactor
 * and is committed to the store before it is handed to the host.
 */
import { randomUUID } from "node:crypto";
import type { Store } from "../../store/store.js";
import type { EffectRecord } from "../effects.js";
import type { Label } from "../flow/label.js";
import type { Redactor } from "../flow/redaction-types.js";
import type { OperationLog } from "../operations/protected-operation.js";
import type { AuditInput, AuditKind, AuditRecord } from "./audit-types.js";
import type { AnyWardenEvent, EventKind, EventPayloads, WardenEvent } from "./event-types.js";
import { toAuditRecord } from "./store-rows.js";

export type EventListener = (event: AnyWardenEvent) => void;

export class EvidenceRecorder {
	private turn = 0;

	constructor(
		private readonly store: Store,
		private readonly redactor: Redactor,
		readonly session: string,
		private readonly listener: EventListener,
	) {}

	setTurn(turn: number): void {
		this.turn = turn;
	}

	get currentTurn(): number {
		return this.turn;
	}

	async emit<K extends EventKind>(kind: K, payload: EventPayloads[K], turn = this.turn): Promise<WardenEvent<K>> {
		const event = {
			kind,
			session: this.session,
			turn,
			time: new Date().toISOString(),
			payload: this.redactor.redact(payload),
		} as WardenEvent<K>;
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

	async audit(kind: AuditKind, data: Record<string, unknown>, callId?: string, turn = this.turn): Promise<AuditRecord> {
		const input: AuditInput = { session: this.session, turn, kind, data: this.redactor.redact(data) };
		if (callId !== undefined) input.call_id = callId;
		return toAuditRecord(await this.store.appendAudit(input));
	}

	/** A value as the redactor leaves it, for evidence kept in rows of its own (an ask a surface is shown). */
	redacted<T>(value: T): T {
		return this.redactor.redact(value);
	}

	/** Persists one conversation message, redacted like every other piece of evidence. */
	async message(message: unknown, label?: Label): Promise<void> {
		await this.store.appendMessage(this.session, this.redactor.redact(message), label);
	}

	/** Effects get their own audit record, linked to the call, and an event naming that record. */
	async effect(effect: EffectRecord): Promise<void> {
		const record = await this.audit("effect", { effect: effect.effect, resource: effect.resource, ...effect.data }, effect.call_id);
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
	 * transaction; the host hears the event only after that commit.
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
						turn: this.turn,
						created_at: new Date().toISOString(),
					},
					beforeImage,
				);
				return id;
			},
			dispatched: (id) => this.store.markOperationDispatched(id),
			settle: async (id, state, outcome, effect) => {
				const turn = this.turn;
				if (!effect) {
					await this.store.settleOperation(id, {
						state,
						outcome: this.redactor.redact(outcome),
						audit: {
							session: this.session,
							turn,
							kind: state === "abandoned" ? "operation.abandoned" : "operation.settled",
							data: this.redactor.redact({ operation: id, state, ...outcome }),
						},
					});
					return;
				}
				const event = {
					kind: "effect.recorded",
					session: this.session,
					turn,
					time: new Date().toISOString(),
					payload: this.redactor.redact({ call_id: effect.call_id, effect: effect.effect, resource: effect.resource, audit_seq: 0 }),
				} as WardenEvent<"effect.recorded">;
				const record = await this.store.settleOperation(id, {
					state,
					outcome: this.redactor.redact(outcome),
					audit: {
						session: this.session,
						turn,
						kind: "effect",
						call_id: effect.call_id,
						data: this.redactor.redact({ effect: effect.effect, resource: effect.resource, ...effect.data, operation: id, state }),
					},
					events: [event as AnyWardenEvent],
				});
				if (record) event.payload.audit_seq = record.seq;
				this.listener(event as AnyWardenEvent);
			},
		};
	}
}
