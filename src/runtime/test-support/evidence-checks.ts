/**
 * What every runtime test asserts about a session's evidence: each event matches the published
 * schema, the trace invariant holds, and the audit chain verifies.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { expect } from "vitest";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import { checkTraceInvariant } from "../../kernel/evidence/trace-invariant.js";
import type { Runtime } from "../runtime.js";

export type EventValidator = (event: AnyWardenEvent) => string | undefined;

/** Compiles schemas/events.v1.json (read by the caller) strictly; the validator returns the problem, if any. */
export function eventValidator(schema: object): EventValidator {
	const validate = new Ajv2020({ strict: true, allErrors: true }).compile(schema);
	return (event) => (validate(event as object) ? undefined : `${event.kind}: ${JSON.stringify(validate.errors)}`);
}

/** Checks one session's recorded events and the whole audit chain; returns the events. */
export async function expectSoundEvidence(runtime: Runtime, sessionId: string, validate: EventValidator): Promise<AnyWardenEvent[]> {
	const events = await runtime.sessionEvents(sessionId);
	expect(events.length).toBeGreaterThan(0);
	expect(events.map(validate).filter((problem) => problem !== undefined)).toEqual([]);
	expect(checkTraceInvariant(events).violations).toEqual([]);
	expect(await runtime.verifyAudit()).toMatchObject({ ok: true });
	return events;
}

/** The call id of an event, if it belongs to a tool call. */
export function callIdOf(event: AnyWardenEvent): string | undefined {
	const payload = event.payload as { call_id?: unknown };
	return typeof payload.call_id === "string" ? payload.call_id : undefined;
}

/** The kinds of one call's events, in order. */
export function callKinds(events: readonly AnyWardenEvent[], callId: string): string[] {
	return events.filter((e) => callIdOf(e) === callId).map((e) => e.kind);
}
