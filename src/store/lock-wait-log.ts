/**
 * The write lock as each write transaction saw it, for the benchmarks: with
 * WARDEN_LOCK_WAIT_LOG=<file> in its environment, a store appends, when it closes, one JSON line
 * `{"waits":[…],"holds":[…],"busy":n}`: per transaction how long it waited for the write lock and
 * how long it then held it (BEGIN IMMEDIATE taken to COMMIT returned), in microseconds, and how many
 * transactions found the lock taken at least once. Unset (always, outside a benchmark), nothing is
 * timed.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

/** Enough for a benchmark's run; a longer-lived store keeps the first ones. */
const MAX_SAMPLES = 100_000;

/** One transaction's clock, started before its first BEGIN IMMEDIATE. */
export interface LockTiming {
	/** The write lock was refused once (another process holds it). */
	busy(): void;
	/** The write lock is held: first thing in the body (a retried body calls it again; the first counts). */
	acquired(): void;
	/** COMMIT returned (or the body failed and rolled back): the lock is free again. */
	released(): void;
}

/** What the lines of one log file hold together. */
export interface LockWaitSamples {
	waitsUs: number[];
	holdsUs: number[];
	/** Transactions that found the lock taken at least once. */
	busy: number;
}

export class LockWaitLog {
	private readonly waits: number[] = [];
	private readonly holds: number[] = [];
	private busyCount = 0;

	private constructor(private readonly file: string) {}

	static fromEnv(env: NodeJS.ProcessEnv = process.env): LockWaitLog | undefined {
		const file = env.WARDEN_LOCK_WAIT_LOG;
		return file ? new LockWaitLog(file) : undefined;
	}

	start(): LockTiming {
		const asked = performance.now();
		let heldSince: number | undefined;
		let wasBusy = false;
		let done = false;
		return {
			busy: () => {
				if (wasBusy || done) return;
				wasBusy = true;
				this.busyCount++;
			},
			acquired: () => {
				if (heldSince !== undefined) return;
				heldSince = performance.now();
				if (this.waits.length < MAX_SAMPLES) this.waits.push((heldSince - asked) * 1000);
			},
			released: () => {
				if (done || heldSince === undefined) return;
				done = true;
				if (this.holds.length < MAX_SAMPLES) this.holds.push((performance.now() - heldSince) * 1000);
			},
		};
	}

	flush(): void {
		if (this.waits.length === 0) return;
		const round = (values: number[]) => values.map((us) => Math.round(us));
		try {
			appendFileSync(this.file, `${JSON.stringify({ waits: round(this.waits), holds: round(this.holds), busy: this.busyCount })}\n`);
		} catch {
			// A measurement that cannot be written is lost, never a reason for the store to fail.
		}
		this.waits.length = 0;
		this.holds.length = 0;
		this.busyCount = 0;
	}
}

/** Every store's lines in a log file, together; an absent file holds none. */
export function readLockWaitLog(file: string): LockWaitSamples {
	const samples: LockWaitSamples = { waitsUs: [], holdsUs: [], busy: 0 };
	if (!existsSync(file)) return samples;
	for (const line of readFileSync(file, "utf8").split("\n")) {
		if (line.trim() === "") continue;
		const entry = JSON.parse(line) as { waits: number[]; holds: number[]; busy: number };
		samples.waitsUs.push(...entry.waits);
		samples.holdsUs.push(...entry.holds);
		samples.busy += entry.busy;
	}
	return samples;
}
