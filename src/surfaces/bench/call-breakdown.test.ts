import { describe, expect, it } from "vitest";
import { breakdown, chargeSamples, COMPONENTS, componentOf, type CpuProfile } from "./call-breakdown.js";
import { callBreakdownLines } from "./call-breakdown-table.js";

const ROOT = "file:///build/dist/";

describe("componentOf", () => {
	it.each(COMPONENTS.flatMap((c) => c.prefixes.map((prefix) => [prefix, c.component] as const)))("a module under %s is %s", (prefix, component) => {
		// A prefix a component before it also covers would never be reached: each row is the first to match its own modules.
		const file = prefix.endsWith("/") ? `${prefix}some-module.js` : prefix;
		expect(componentOf(`${ROOT}${file}`, ROOT)).toBe(component);
	});

	it("knows nothing of code outside the build: Node's own and the dependencies", () => {
		expect(componentOf("node:internal/fs/promises", ROOT)).toBeUndefined();
		expect(componentOf(`${ROOT}node_modules/ajv/dist/core.js`, ROOT)).toBeUndefined();
		expect(componentOf("", ROOT)).toBeUndefined();
	});
});

/** A profile of one stack per sample: each entry is [leaf frames from the root down, microseconds]. */
function profileOf(stacks: [[string, string][], number][]): CpuProfile {
	const nodes: { id: number; callFrame: { functionName: string; url: string }; children: number[] }[] = [{ id: 1, callFrame: { functionName: "(root)", url: "" }, children: [] }];
	const samples: number[] = [];
	const timeDeltas: number[] = [];
	for (const [frames, us] of stacks) {
		let parent = nodes[0]!;
		for (const [functionName, url] of frames) {
			const node = { id: nodes.length + 1, callFrame: { functionName, url }, children: [] as number[] };
			nodes.push(node);
			parent.children.push(node.id);
			parent = node;
		}
		samples.push(parent.id);
		timeDeltas.push(us);
	}
	return { nodes, samples, timeDeltas };
}

describe("chargeSamples", () => {
	it("charges a sample to the innermost Warden frame on its stack, a builtin's to the code that called it", () => {
		const charged = chargeSamples(
			profileOf([
				[[["run", `${ROOT}runtime/turn-loop.js`], ["read", `${ROOT}kernel/kernel-fs.js`], ["open", "node:internal/fs/promises"], ["openFileHandle", ""]], 30],
				[[["run", `${ROOT}runtime/turn-loop.js`], ["canonicalJson", `${ROOT}kernel/evidence/audit-chain.js`], ["stringify", ""]], 20],
				[[["run", `${ROOT}runtime/turn-loop.js`], ["validate", `${ROOT}node_modules/ajv/dist/core.js`]], 5],
				[[["(idle)", ""]], 40],
				[[["(garbage collector)", ""]], 7],
				[[["processTicksAndRejections", "node:internal/process/task_queues"]], 3],
				[[["profileCalls", `${ROOT}surfaces/bench/call-breakdown.js`], ["dispatch", ""]], 999],
			]),
			ROOT,
		);
		expect(Object.fromEntries(charged)).toEqual({
			"fs primitive and path confinement": 30,
			"audit chain (canonical JSON, sha256)": 20,
			"turn loop, session and kernel setup": 5,
			"waiting (event loop idle: thread-pool round trips)": 40,
			"garbage collection": 7,
			"Node internals (no Warden frame on the stack)": 3,
		});
	});
});

describe("breakdown", () => {
	it("scales the shares to the round's wall time per call, largest first", () => {
		const b = breakdown(new Map([["a", 10], ["b", 30]]), 4, 8000, 100);
		expect(b).toEqual({
			calls: 4,
			samplingUs: 100,
			profiledUsPerCall: 2000,
			components: [
				{ component: "b", usPerCall: 1500, share: 0.75 },
				{ component: "a", usPerCall: 500, share: 0.25 },
			],
		});
		const lines = callBreakdownLines(b, "where it goes");
		expect(lines[0]).toBe("where it goes (one profiled round of 4 calls, sampled every 100 µs; 2000 µs per call with the profiler on)");
		expect(lines.slice(1)).toEqual(["  component   µs per call   share", "  b                  1500   75.0%", "  a                   500   25.0%"]);
	});
});
