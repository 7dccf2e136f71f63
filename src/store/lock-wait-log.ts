/**
 * The write-lock wait of each write transaction, for the concurrency benchmark: with
 * WARDEN_LOCK_WAIT_LOG=<file> in its environment, a store appends its waits (microseconds, one JSON
 * array per store) to that file when it closes. Unset (always, outside the benchmark), a wait is
 * not even timed.
 */
import { appendFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

/** Enough for a benchmark's run; a longer-lived store keeps the first ones. */
const MAX_SAMPLES = 100_000;

export class LockWaitLog {
	private readonly samples: number[] = [];

	private constructor(private readonly file: string) {}

	static fromEnv(env: NodeJS.ProcessEnv = process.env): LockWaitLog | undefined {
		const file = env.WARDEN_LOCK_WAIT_LOG;
		return file ? new LockWaitLog(file) : undefined;
	}

	/** A clock started before BEGIN IMMEDIATE; calling the returned function (once, first thing in the body) records the wait. */
	start(): () => void {
		const asked = performance.now();
		let done = false;
		return () => {
			if (done) return;
			done = true;
			if (this.samples.length < MAX_SAMPLES) this.samples.push((performance.now() - asked) * 1000);
		};
	}

	flush(): void {
		if (this.samples.length === 0) return;
		try {
			appendFileSync(this.file, `${JSON.stringify(this.samples.map((us) => Math.round(us)))}\n`);
		} catch {
			// A measurement that cannot be written is lost, never a reason for the store to fail.
		}
		this.samples.length = 0;
	}
}
