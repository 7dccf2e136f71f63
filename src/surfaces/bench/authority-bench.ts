/**
 * The authority plane's costs. Capability decisions per second with 1,000 capabilities held,
 * against the same request mix under a 10-grant preset (the ratio is what holding many grants
 * costs; admission finds grants through a per-right prefix index, grant-index.ts, not by scanning
 * them all). And the cost of an "allow once" lease: granted with
 * the arguments' digest and consumed against a fresh digest of the presented arguments, against
 * the floor of that work, one bare sha256 of the canonical arguments.
 */
import { performance } from "node:perf_hooks";
import { LeaseBook } from "../../kernel/approval/lease-book.js";
import { argumentsDigest } from "../../kernel/approval/target-state.js";
import { Authority } from "../../kernel/authority/authority.js";
import { CapabilityDeniedError } from "../../kernel/authority/authority-errors.js";
import { type GrantSpec, issueGrant } from "../../kernel/authority/capability.js";
import type { AccessRequest } from "../../kernel/authority/resource.js";
import { taskCeiling } from "../../kernel/authority/task-ceiling.js";
import type { AuthorityReport, LeaseReport } from "./bench-types.js";
import { BenchError } from "./bench-error.js";
import { rateTiming } from "./call-timing.js";

export interface AuthorityBenchOptions {
	capabilities: number;
	leaseChecks: number;
	rounds: number;
	warmupRounds: number;
	onProgress: (line: string) => void;
}

/** What a host with many grants holds: one per package, a shell grant per script, denies and egress. */
export function manyGrants(count: number): GrantSpec[] {
	const specs: GrantSpec[] = [];
	for (let i = 0; specs.length < count; i++) {
		switch (i % 5) {
			case 0:
			case 1:
				specs.push({ id: `pkg-${i}`, resource: `fs:packages/pkg${i}/**`, rights: ["read", "write"] });
				break;
			case 2:
				specs.push({ id: `script-${i}`, resource: `shell:npm run task${i} *`, rights: ["exec"] });
				break;
			case 3:
				specs.push({ id: `secret-${i}`, resource: `fs:packages/pkg${i - 3}/.env*`, rights: ["read", "write"], effect: "deny" });
				break;
			default:
				specs.push({ id: `api-${i}`, resource: `net:https://api${i}.example.com:443`, rights: ["egress"] });
		}
	}
	return specs;
}

/** A 10-grant preset covering the same ground coarsely. */
export const PRESET_GRANTS: readonly GrantSpec[] = [
	{ id: "fs", resource: "fs:packages/**", rights: ["read", "write"] },
	{ id: "docs", resource: "fs:docs/**", rights: ["read"] },
	{ id: "readme", resource: "fs:README.md", rights: ["read"] },
	{ id: "env", resource: "fs:**/.env*", rights: ["read", "write"], effect: "deny" },
	{ id: "git-dir", resource: "fs:.git/**", rights: ["write"], effect: "deny" },
	{ id: "npm", resource: "shell:npm run *", rights: ["exec"] },
	{ id: "git", resource: "shell:git *", rights: ["exec"] },
	{ id: "ls", resource: "shell:ls*", rights: ["exec"] },
	{ id: "api", resource: "net:https://*.example.com:443", rights: ["egress"] },
	{ id: "push", resource: "shell:git push *", rights: ["exec"], effect: "deny" },
];

/** Reads and writes across packages, scripts, secrets, egress, and some nothing covers. */
export function requestMix(capabilities: number): AccessRequest[] {
	const span = Math.max(5, capabilities);
	const requests: AccessRequest[] = [];
	for (let k = 0; k < 200; k++) {
		const i = (k * 37) % span;
		const pkg = i - (i % 5);
		switch (k % 8) {
			case 0:
			case 1:
				requests.push({ resource: `fs:packages/pkg${pkg}/src/file${k}.ts`, right: "read" });
				break;
			case 2:
				requests.push({ resource: `fs:packages/pkg${pkg}/src/file${k}.ts`, right: "write" });
				break;
			case 3:
				requests.push({ resource: `fs:packages/pkg${pkg}/.env.local`, right: "read" });
				break;
			case 4:
				requests.push({ resource: `shell:npm run task${pkg + 2} --silent`, right: "exec" });
				break;
			case 5:
				requests.push({ resource: `net:https://api${pkg + 4}.example.com:443`, right: "egress" });
				break;
			case 6:
				requests.push({ resource: `fs:vendor/lib${k}.js`, right: "write" });
				break;
			default:
				requests.push({ resource: "shell:curl https://evil.example", right: "exec" });
		}
	}
	return requests;
}

function authorityOf(specs: readonly GrantSpec[]): Authority {
	return new Authority({ grants: specs.map((s, i) => issueGrant(s, "host", "bench", `g${i}`)), ceiling: taskCeiling() });
}

/** Admits each request on its own; returns how many were admitted. */
function pass(authority: Authority, requests: readonly AccessRequest[]): number {
	let admitted = 0;
	for (const request of requests) {
		try {
			authority.admit([request], { approved: false });
			admitted++;
		} catch (err) {
			if (!(err instanceof CapabilityDeniedError)) throw err;
		}
	}
	return admitted;
}

/** Per-item microseconds of each measured round. */
function measure(rounds: number, warmupRounds: number, items: number, body: () => number, expected: number, what: string): number[] {
	const samples: number[] = [];
	for (let r = 0; r < warmupRounds + rounds; r++) {
		const started = performance.now();
		const result = body();
		const us = ((performance.now() - started) * 1000) / items;
		// Also keeps the optimizer from discarding work nobody reads.
		if (result !== expected) throw new BenchError(`${what} gave ${result} in round ${r + 1}, ${expected} before: results are not deterministic`);
		if (r >= warmupRounds) samples.push(us);
	}
	return samples;
}

export function benchAuthority(options: AuthorityBenchOptions): AuthorityReport {
	const requests = requestMix(options.capabilities);
	const held = authorityOf(manyGrants(options.capabilities));
	const preset = authorityOf(PRESET_GRANTS);
	const admitted = { held: pass(held, requests), preset: pass(preset, requests) };
	options.onProgress(`authority: ${options.rounds} rounds of ${requests.length} decisions, ${options.capabilities} capabilities held vs ${PRESET_GRANTS.length}`);
	const heldSamples = measure(options.rounds, options.warmupRounds, requests.length, () => pass(held, requests), admitted.held, "admission with many grants");
	const presetSamples = measure(options.rounds, options.warmupRounds, requests.length, () => pass(preset, requests), admitted.preset, "admission with the preset");
	const heldTiming = rateTiming(heldSamples);
	const presetTiming = rateTiming(presetSamples);
	return {
		capabilitiesHeld: options.capabilities,
		presetGrants: PRESET_GRANTS.length,
		requestsPerRound: requests.length,
		rounds: options.rounds,
		warmupRounds: options.warmupRounds,
		admitted,
		held: heldTiming,
		preset: presetTiming,
		ratio: heldTiming.medianUs / presetTiming.medianUs,
	};
}

const LEASE_ARGS = { path: "src/server/handlers/user-profile.ts", content: `${"export const value = 1;\n".repeat(40)}` };

export function benchLeases(options: AuthorityBenchOptions): LeaseReport {
	const n = options.leaseChecks;
	const target = argumentsDigest({ kind: "file", path: LEASE_ARGS.path });
	const leaseRound = (): number => {
		const book = new LeaseBook();
		let ok = 0;
		for (let i = 0; i < n; i++) {
			const binding = { session: "bench", callId: `call-${i}`, tool: "write_file", argumentsDigest: argumentsDigest(LEASE_ARGS), targetDigest: target };
			const lease = book.grant(`request-${i}`, binding);
			if (book.consume(lease.id, { ...binding, argumentsDigest: argumentsDigest(LEASE_ARGS) }).ok) ok++;
		}
		return ok;
	};
	const digestRound = (): number => {
		let ok = 0;
		for (let i = 0; i < n; i++) if (argumentsDigest(LEASE_ARGS).length === 64) ok++;
		return ok;
	};
	options.onProgress(`leases: ${options.rounds} rounds of ${n} lease checks`);
	const lease = rateTiming(measure(options.rounds, options.warmupRounds, n, leaseRound, n, "lease checks"));
	const digest = rateTiming(measure(options.rounds, options.warmupRounds, n, digestRound, n, "digests"));
	return {
		checksPerRound: n,
		rounds: options.rounds,
		warmupRounds: options.warmupRounds,
		argumentsBytes: JSON.stringify(LEASE_ARGS).length,
		digest,
		lease,
		ratio: lease.medianUs / digest.medianUs,
	};
}
