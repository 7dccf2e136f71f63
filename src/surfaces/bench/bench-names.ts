/** The benchmarks by the names `--only` takes: the report's section names, in the report's order. */
import type { BenchName } from "./bench-types.js";
import { BenchError } from "./bench-error.js";

export const BENCH_NAMES: readonly BenchName[] = [
	"governedRead",
	"decisions",
	"authority",
	"leases",
	"appends",
	"auditVerify",
	"cliStart",
	"recovery",
	"sandbox",
	"jit",
	"concurrency",
	"modelTransport",
	"llama",
	"groupCommit",
	"mcp",
	"session",
	"compaction",
	"skillProjection",
	"tui",
	"console",
	"memorySearch",
];

const isBenchName = (name: string): name is BenchName => (BENCH_NAMES as readonly string[]).includes(name);

/** The names `--only` gave, checked and without repeats; undefined (every benchmark) when it gave none. */
export function selectBenchmarks(only: readonly string[] | undefined): BenchName[] | undefined {
	if (only === undefined) return undefined;
	const names = only.map((name) => name.trim()).filter((name) => name !== "");
	if (names.length === 0) throw new BenchError("--only names no benchmark");
	const selected: BenchName[] = [];
	for (const name of names) {
		if (!isBenchName(name)) throw new BenchError(`unknown benchmark ${JSON.stringify(name)} (the benchmarks: ${BENCH_NAMES.join(", ")})`);
		if (!selected.includes(name)) selected.push(name);
	}
	return selected;
}

/** `--only a,b`: the comma-separated list as given; selectBenchmarks checks it. */
export function parseOnly(value: string): string[] {
	return value.split(",");
}
