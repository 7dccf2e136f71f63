/** Heap and RSS after a forced garbage collection, so retained memory is not hidden by garbage. */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

export interface HeapSnapshot {
	gcForced: boolean;
	heapUsed: number;
	rss: number;
}

let collector: (() => void) | undefined | null;

/** The engine's gc function; enabling the flag at run time saves every caller from passing --expose-gc. */
function garbageCollector(): (() => void) | undefined {
	if (collector === undefined) {
		try {
			setFlagsFromString("--expose-gc");
			const gc: unknown = runInNewContext("gc");
			collector = typeof gc === "function" ? (gc as () => void) : null;
		} catch {
			collector = null;
		}
	}
	return collector ?? undefined;
}

export function heapSnapshot(): HeapSnapshot {
	const gc = garbageCollector();
	if (gc) {
		// Twice: the first pass can leave objects that only become unreachable after finalizers ran.
		gc();
		gc();
	}
	const usage = process.memoryUsage();
	return { gcForced: gc !== undefined, heapUsed: usage.heapUsed, rss: usage.rss };
}
