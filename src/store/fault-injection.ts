/**
 * Crash points for the crash matrix: with WARDEN_CRASH_AT=<point> in its environment, the process
 * kills itself with SIGKILL when it reaches that point — no handler, no flush, exactly what a power
 * cut or an OOM kill leaves behind. Unset (always, outside the crash tests), a crash point is a
 * string comparison and nothing else.
 */

/** Every durability barrier the crash matrix exercises. */
export const CRASH_POINTS = [
	/** Intent row committed (prepared), nothing dispatched. */
	"operation.prepared",
	/** Marked dispatched, provider not yet called. */
	"operation.dispatched",
	/** The provider did the work; its outcome is not recorded. */
	"operation.performed",
	/** Settled (state, audit record, events committed), nothing after it yet: before the primitive returns, or at the commit of a call whose writes are deferred. */
	"operation.settled",
	/** Inside the audit append's transaction, after the insert, before the commit. */
	"store.audit-append",
	/** Inside an event append's transaction, before the commit. */
	"store.event-append",
	/** The model answered; nothing of the answer recorded yet. */
	"turn.model-answered",
	/** A tool call ended; its result message not yet persisted. */
	"turn.tool-result",
	/** The turn's final event is committed; the session is not ended. */
	"turn.completed",
] as const;

export type CrashPoint = (typeof CRASH_POINTS)[number];

/**
 * Read once, when the process loads this module: the crash matrix sets it in a child's environment
 * at its start, and a lookup in process.env is a call into the C library, made at every barrier of
 * every governed call.
 */
const CRASH_AT = process.env.WARDEN_CRASH_AT;

export function crashPoint(point: CrashPoint): void {
	if (CRASH_AT === point) process.kill(process.pid, "SIGKILL");
}
