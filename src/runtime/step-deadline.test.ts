import { describe, expect, it } from "vitest";
import { stepDeadline } from "./step-deadline.js";

describe("stepDeadline", () => {
	it("aborts with a TimeoutError once the deadline passes, and says it expired", async () => {
		const turn = new AbortController();
		const step = stepDeadline(turn.signal, 10);
		expect(step.signal.aborted).toBe(false);
		await new Promise((resolve) => step.signal.addEventListener("abort", resolve, { once: true }));
		expect(step.expired).toBe(true);
		expect((step.signal.reason as DOMException).name).toBe("TimeoutError");
		expect(turn.signal.aborted).toBe(false);
	});

	it("aborts with the turn's own reason when the turn is cancelled first, and has not expired", () => {
		const turn = new AbortController();
		const step = stepDeadline(turn.signal, 60_000);
		const reason = new Error("cancelled by the host");
		turn.abort(reason);
		expect(step.signal.aborted).toBe(true);
		expect(step.signal.reason).toBe(reason);
		expect(step.expired).toBe(false);
	});

	it("is aborted at once for a turn already cancelled", () => {
		const turn = new AbortController();
		turn.abort("gone");
		const step = stepDeadline(turn.signal, 60_000);
		expect(step.signal.aborted).toBe(true);
		expect(step.signal.reason).toBe("gone");
	});

	it("after dispose neither the deadline nor a later cancel reaches the step's signal", async () => {
		const turn = new AbortController();
		const step = stepDeadline(turn.signal, 5);
		step.dispose();
		await new Promise((resolve) => setTimeout(resolve, 20));
		turn.abort("late");
		expect(step.signal.aborted).toBe(false);
		expect(step.expired).toBe(false);
	});
});
