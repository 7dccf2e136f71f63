/**
 * The sink registry: host rules first (first match wins), then the runtime's defaults, then the
 * fallback for a sink nobody named: untrusted, clearing up to `internal`. Its generation hashes the
 * rules, so an exact release granted under one registry cannot be spent under another. Rules are
 * looked up through a prefix index (pattern-index.ts), which keeps their order.
 */
import { createHash } from "node:crypto";
import { PatternIndex } from "../authority/pattern-index.js";
import { parsePattern, patternMatches } from "../authority/resource-pattern.js";
import { canonicalJson } from "../evidence/audit-chain.js";
import { FlowConfigError } from "./flow-errors.js";
import type { SinkClearance, SinkRegistry, SinkRule, SinkTrust } from "./flow-types.js";
import { INTEGRITIES, type Integrity, SENSITIVITIES, type Sensitivity, atMost, sensitivityRank } from "./label.js";

const RULE_KEYS = ["sink", "trust", "max", "release", "min_integrity", "source"];
const TRUSTS: readonly SinkTrust[] = ["trusted", "untrusted"];

export const UNMATCHED_RULE = "default: unmatched sink";

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], at: string): T {
	if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
		throw new FlowConfigError(`${at} must be one of ${allowed.join(", ")}`);
	}
	return value as T;
}

/** Checks host-written sink rules; `source` names where they came from unless a rule says. */
export function checkSinkRules(specs: unknown, field: string, source: string): SinkRule[] {
	if (specs === undefined || specs === null) return [];
	if (!Array.isArray(specs)) throw new FlowConfigError(`${field} must be a list of { sink, trust, max, release?, min_integrity? }`);
	return specs.map((item, i): SinkRule => {
		const at = `${field}[${i}]`;
		if (!isObject(item)) throw new FlowConfigError(`${at} must be a mapping { sink, trust, max, release?, min_integrity? }`);
		const extra = Object.keys(item).find((k) => !RULE_KEYS.includes(k));
		if (extra !== undefined) throw new FlowConfigError(`${at}.${extra}: unknown key (allowed: ${RULE_KEYS.join(", ")})`);
		if (typeof item.sink !== "string" || item.sink === "") {
			throw new FlowConfigError(`${at}.sink must be a resource pattern such as "net:https://api.example.com:443"`);
		}
		try {
			parsePattern(item.sink);
		} catch (err) {
			throw new FlowConfigError(`${at}.sink: ${(err as Error).message}`);
		}
		const trust = oneOf(item.trust, TRUSTS, `${at}.trust`);
		const max = oneOf<Sensitivity>(item.max, SENSITIVITIES, `${at}.max`);
		const release = item.release === undefined ? undefined : oneOf<Sensitivity>(item.release, SENSITIVITIES, `${at}.release`);
		const minIntegrity = item.min_integrity === undefined ? undefined : oneOf<Integrity>(item.min_integrity, INTEGRITIES, `${at}.min_integrity`);
		if (item.source !== undefined && (typeof item.source !== "string" || item.source === "")) {
			throw new FlowConfigError(`${at}.source must be a non-empty string`);
		}
		// An untrusted sink is one the host does not control: nothing above internal reaches it on its own.
		// Only a human's exact one-shot release can let one payload past that, one at a time.
		if (trust === "untrusted" && !atMost(max, "internal")) {
			throw new FlowConfigError(`${at}.max: an untrusted sink clears at most internal, not ${max}`);
		}
		if (release !== undefined) {
			if (sensitivityRank(release) <= sensitivityRank(max)) {
				throw new FlowConfigError(`${at}.release must be above max (${max}), not ${release}`);
			}
		}
		return {
			sink: item.sink,
			trust,
			max,
			...(release !== undefined ? { release } : {}),
			...(minIntegrity !== undefined ? { min_integrity: minIntegrity } : {}),
			source: (item.source as string | undefined) ?? source,
		};
	});
}

export interface DefaultSinkOptions {
	/** The session's model sink (`llm:<profile>`); local when in-process or on loopback. */
	model?: { sink: string; local: boolean };
}

/** The runtime's defaults, applied after the host's rules. */
export function defaultSinkRules(opts: DefaultSinkOptions = {}): SinkRule[] {
	const rules: SinkRule[] = [];
	if (opts.model) {
		rules.push(
			opts.model.local
				? { sink: opts.model.sink, trust: "trusted", max: "secret", source: "default: local model" }
				: { sink: opts.model.sink, trust: "untrusted", max: "internal", source: "default: remote model" },
		);
	}
	// Workspace files stay on this machine: writing data there is not egress (a later read carries its label).
	rules.push({ sink: "fs:**", trust: "trusted", max: "secret", source: "default: workspace files" });
	rules.push({ sink: "human:*", trust: "trusted", max: "secret", source: "default: the host's own person" });
	// Memory stays in the state dir and keeps each record's label: a recall carries it back, as a file read does.
	rules.push({ sink: "memory:*", trust: "trusted", max: "secret", source: "default: memory in the state dir" });
	return rules;
}

function ruleName(rule: SinkRule): string {
	return `${rule.sink} (${rule.source})`;
}

export function createSinkRegistry(rules: readonly SinkRule[]): SinkRegistry {
	const frozen = rules.map((r) => Object.freeze({ ...r }));
	const compiled = frozen.map((rule) => ({ rule, pattern: parsePattern(rule.sink) }));
	// Candidates come back in rule order, so the first one that matches is the first rule that does.
	const index = new PatternIndex();
	for (const [i, { pattern }] of compiled.entries()) index.add(pattern, i);
	const firstMatch = (sink: string) => {
		for (const i of index.candidates(sink)) if (patternMatches(compiled[i]!.pattern, sink)) return compiled[i];
		return undefined;
	};
	const generation = createHash("sha256").update(canonicalJson(frozen)).digest("hex");
	return {
		rules: Object.freeze(frozen),
		generation,
		resolve(sink: string): SinkClearance {
			const hit = firstMatch(sink);
			if (hit === undefined) return { sink, trust: "untrusted", max: "internal", rule: UNMATCHED_RULE };
			const { rule } = hit;
			return {
				sink,
				trust: rule.trust,
				max: rule.max,
				...(rule.release !== undefined ? { release: rule.release } : {}),
				...(rule.min_integrity !== undefined ? { min_integrity: rule.min_integrity } : {}),
				rule: ruleName(rule),
			};
		},
	};
}
