/**
 * The one writer of evidence for a session: every event and audit record passes the redactor
 * and is committed to the store before it is handed to the host.
 */
import type { Store } from "../../store/store.js";
import type { EffectRecord } from "../effects.js";
import type { Redactor } from "../flow/redaction-types.js";
import type { AuditInput, AuditKind, AuditRecord } from "./audit-types.js";
import type { AnyWardenEvent, EventKind, EventPayloads, WardenEvent } from "./event-types.js";

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

	async audit(kind: AuditKind, data: Record<string, unknown>, callId?: string, turn = this.turn): Promise<AuditRecord> {
		const input: AuditInput = { session: this.session, turn, kind, data: this.redactor.redact(data) };
		if (callId !== undefined) input.call_id = callId;
		return this.store.appendAudit(input);
	}

	/** Persists one conversation message, redacted like every other piece of evidence. */
	async message(message: unknown): Promise<void> {
		await this.store.appendMessage(this.session, this.redactor.redact(message));
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
}
