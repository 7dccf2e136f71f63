/**
 * Where a governed call's time goes: a CPU profile of a run (the inspector's sampling profiler,
 * in process), each sample charged to the component whose code was running. A sample is charged
 * to the innermost frame of Warden's own code on its stack, so a builtin (JSON.stringify, a hash,
 * a regular expression) counts for the Warden code that called it; the event loop's idle time
 * (waiting on the thread pool), garbage collection and V8's own work are components of their own.
 */
import { Session } from "node:inspector/promises";
import { performance } from "node:perf_hooks";
import type { CallBreakdown } from "./bench-types.js";

/** The components, by the path of a module under the build root; the first whose prefix matches wins. */
export const COMPONENTS: readonly { component: string; prefixes: readonly string[] }[] = [
	{ component: "fs primitive and path confinement", prefixes: ["kernel/kernel-fs.js", "kernel/workspace-paths.js", "providers/fs-provider.js", "providers/real-path.js", "tools/read-file.js"] },
	{ component: "permission decision", prefixes: ["kernel/admission/", "runtime/decide-call.js", "runtime/hooks/"] },
	{ component: "argument validation", prefixes: ["tools/argument-validator.js"] },
	{ component: "redaction", prefixes: ["kernel/flow/redaction.js", "kernel/flow/secret-"] },
	{ component: "flow plane (labels, egress, model context)", prefixes: ["kernel/flow/"] },
	{ component: "audit chain (canonical JSON, sha256)", prefixes: ["kernel/evidence/audit-chain.js", "kernel/evidence/store-rules.js", "kernel/evidence/sha256.js"] },
	{ component: "evidence recorder (events, audit, messages)", prefixes: ["kernel/evidence/"] },
	{ component: "store (the bench's in-memory store, JSON in and out)", prefixes: ["surfaces/bench/memory-store.js", "store/"] },
	{ component: "context keeper (manifests, compaction)", prefixes: ["runtime/context/"] },
	{ component: "model step (scripted model, llm primitive)", prefixes: ["models/", "kernel/kernel-llm.js"] },
	{ component: "authority and budget", prefixes: ["kernel/authority/", "kernel/budget/", "kernel/operations/"] },
	{ component: "tool outcome record", prefixes: ["runtime/tool-outcomes.js", "kernel/kernel-memory.js"] },
	{ component: "benchmark driver", prefixes: ["surfaces/bench/"] },
	{ component: "turn loop, session and kernel setup", prefixes: ["runtime/", "kernel/", "tools/", "index.js"] },
];

/** The profiler's own nodes, by name. */
const SPECIAL: Readonly<Record<string, string>> = {
	"(idle)": "waiting (event loop idle: thread-pool round trips)",
	"(garbage collector)": "garbage collection",
	"(program)": "V8 and Node outside any script",
};
const OUTSIDE = "Node internals (no Warden frame on the stack)";
/** Samples of the profiler's own start and stop (this module's frames): no part of the calls, so not charged. */
const PROFILER = "(the profiler itself)";
const THIS_MODULE = "surfaces/bench/call-breakdown.js";

/** The build root: src/ as compiled (this module is surfaces/bench/call-breakdown.js under it). */
const ROOT = new URL("../../", import.meta.url).href;

interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string };
	children?: number[];
}

export interface CpuProfile {
	nodes: ProfileNode[];
	samples?: number[];
	timeDeltas?: number[];
}

/** The component a module under the build root belongs to; undefined for code outside it (Node's own, dependencies). */
export function componentOf(url: string, root = ROOT): string | undefined {
	if (!url.startsWith(root)) return undefined;
	const rel = url.slice(root.length);
	if (rel.startsWith("node_modules/")) return undefined;
	if (rel === THIS_MODULE) return PROFILER;
	return COMPONENTS.find((c) => c.prefixes.some((prefix) => rel.startsWith(prefix)))?.component ?? "turn loop, session and kernel setup";
}

/** Sample time per component, in microseconds. */
export function chargeSamples(profile: CpuProfile, root = ROOT): Map<string, number> {
	const byId = new Map(profile.nodes.map((n) => [n.id, n]));
	const parent = new Map<number, number>();
	for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
	// Each node's component, found once: the innermost Warden frame from it up to the root.
	const charged = new Map<number, string>();
	const chargeOf = (id: number): string => {
		const known = charged.get(id);
		if (known !== undefined) return known;
		const node = byId.get(id)!;
		const special = SPECIAL[node.callFrame.functionName];
		const up = parent.get(id);
		const component = (node.callFrame.url === "" ? special : undefined) ?? componentOf(node.callFrame.url, root) ?? (up === undefined ? OUTSIDE : chargeOf(up));
		charged.set(id, component);
		return component;
	};
	const out = new Map<string, number>();
	const samples = profile.samples ?? [];
	const deltas = profile.timeDeltas ?? [];
	for (let i = 0; i < samples.length; i++) {
		const component = chargeOf(samples[i]!);
		if (component === PROFILER) continue;
		out.set(component, (out.get(component) ?? 0) + Math.max(0, deltas[i] ?? 0));
	}
	return out;
}

/** The breakdown of `charged` over `calls` calls, scaled so the components add up to the round's wall time. */
export function breakdown(charged: Map<string, number>, calls: number, wallUs: number, samplingUs: number): CallBreakdown {
	const sampled = [...charged.values()].reduce((a, b) => a + b, 0);
	const profiledUsPerCall = wallUs / calls;
	const components = [...charged]
		.map(([component, us]) => {
			const share = sampled > 0 ? us / sampled : 0;
			return { component, usPerCall: share * profiledUsPerCall, share };
		})
		.sort((a, b) => b.usPerCall - a.usPerCall);
	return { calls, samplingUs, profiledUsPerCall, components };
}

/** Runs `round` (which makes `calls` governed calls) under the sampling profiler and breaks its time down. */
export async function profileCalls(round: () => Promise<void>, calls: number, samplingUs = 100): Promise<CallBreakdown> {
	const session = new Session();
	session.connect();
	try {
		await session.post("Profiler.enable");
		await session.post("Profiler.setSamplingInterval", { interval: samplingUs });
		await session.post("Profiler.start");
		const started = performance.now();
		let wallUs = 0;
		let profile: CpuProfile;
		try {
			await round();
		} finally {
			wallUs = (performance.now() - started) * 1000;
			({ profile } = (await session.post("Profiler.stop")) as { profile: CpuProfile });
		}
		return breakdown(chargeSamples(profile), calls, wallUs, samplingUs);
	} finally {
		await session.post("Profiler.disable");
		session.disconnect();
	}
}
