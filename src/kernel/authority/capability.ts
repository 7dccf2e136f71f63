/**
 * Capabilities: what a holder may do to resources matching a pattern. Hosts hand them over as
 * plain data (`GrantSpec`); `issueGrant` checks that data and fills in issuer, holder and id.
 */
import { AuthorityFormatError } from "./authority-errors.js";
import { RIGHTS, type Right } from "./resource.js";
import { parsePattern } from "./resource-pattern.js";

export type GrantEffect = "allow" | "ask" | "deny";
export const GRANT_EFFECTS: readonly GrantEffect[] = ["allow", "ask", "deny"];

export interface CapabilityConstraints {
	/** Largest single read or write the grant admits, in bytes. */
	max_bytes?: number;
	/** Shell: only sub-commands known to be read-only (`ls`, `cat`, `git status` …). */
	read_only_commands?: boolean;
}

export interface Capability {
	id: string;
	/** A resource pattern such as `fs:src/**`, `shell:git *`, `net:https://api.example.com:443`. */
	resource: string;
	rights: Right[];
	effect: GrantEffect;
	constraints?: CapabilityConstraints;
	issuer: string;
	holder: string;
	/** ISO-8601 time after which the grant admits nothing. */
	expires_at?: string;
	/** How many admissions the grant allows in all. */
	uses?: number;
	/** The grant this one was delegated from. */
	parent?: string;
}

/** A grant as a host writes it: effect defaults to allow, issuer to `host`. */
export interface GrantSpec {
	id?: string;
	resource: string;
	rights: readonly Right[];
	effect?: GrantEffect;
	constraints?: CapabilityConstraints;
	expires_at?: string;
	uses?: number;
}

const SPEC_KEYS = ["id", "resource", "rights", "effect", "constraints", "expires_at", "uses"];
const CONSTRAINT_KEYS = ["max_bytes", "read_only_commands"];

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Rights, checked, de-duplicated and in the order of RIGHTS. */
export function checkRights(value: unknown, field: string): Right[] {
	if (!Array.isArray(value) || value.length === 0) throw new AuthorityFormatError(`${field} must be a non-empty list of ${RIGHTS.join(", ")}`);
	for (const r of value) {
		if (!(RIGHTS as readonly unknown[]).includes(r)) throw new AuthorityFormatError(`${field}: unknown right ${JSON.stringify(r)} (use ${RIGHTS.join(", ")})`);
	}
	return RIGHTS.filter((r) => value.includes(r));
}

function checkConstraints(value: unknown, field: string): CapabilityConstraints | undefined {
	if (value === undefined) return undefined;
	if (!isObject(value)) throw new AuthorityFormatError(`${field} must be a mapping`);
	const extra = Object.keys(value).find((k) => !CONSTRAINT_KEYS.includes(k));
	if (extra !== undefined) throw new AuthorityFormatError(`${field}.${extra}: unknown constraint (allowed: ${CONSTRAINT_KEYS.join(", ")})`);
	const out: CapabilityConstraints = {};
	if (value.max_bytes !== undefined) {
		if (!Number.isInteger(value.max_bytes) || (value.max_bytes as number) < 0) throw new AuthorityFormatError(`${field}.max_bytes must be a non-negative integer`);
		out.max_bytes = value.max_bytes as number;
	}
	if (value.read_only_commands !== undefined) {
		if (typeof value.read_only_commands !== "boolean") throw new AuthorityFormatError(`${field}.read_only_commands must be true or false`);
		out.read_only_commands = value.read_only_commands;
	}
	return out;
}

/** Checks one host-written grant; `field` names it in errors (e.g. `grants[2]`). */
export function checkGrantSpec(value: unknown, field: string): GrantSpec {
	if (!isObject(value)) throw new AuthorityFormatError(`${field} must be a mapping with resource and rights`);
	const extra = Object.keys(value).find((k) => !SPEC_KEYS.includes(k));
	if (extra !== undefined) throw new AuthorityFormatError(`${field}.${extra}: unknown key (allowed: ${SPEC_KEYS.join(", ")})`);
	if (typeof value.resource !== "string") throw new AuthorityFormatError(`${field}.resource must be a string such as "fs:src/**"`);
	try {
		parsePattern(value.resource);
	} catch (err) {
		throw new AuthorityFormatError(`${field}.resource: ${(err as Error).message}`);
	}
	const spec: GrantSpec = { resource: value.resource, rights: checkRights(value.rights, `${field}.rights`) };
	if (value.id !== undefined) {
		if (typeof value.id !== "string" || value.id === "") throw new AuthorityFormatError(`${field}.id must be a non-empty string`);
		spec.id = value.id;
	}
	if (value.effect !== undefined) {
		if (!GRANT_EFFECTS.includes(value.effect as GrantEffect)) throw new AuthorityFormatError(`${field}.effect must be allow, ask or deny`);
		spec.effect = value.effect as GrantEffect;
	}
	const constraints = checkConstraints(value.constraints, `${field}.constraints`);
	if (constraints) spec.constraints = constraints;
	if (value.expires_at !== undefined) {
		// YAML turns an unquoted timestamp into a Date.
		const text = value.expires_at instanceof Date ? value.expires_at.toISOString() : value.expires_at;
		if (typeof text !== "string" || Number.isNaN(Date.parse(text))) throw new AuthorityFormatError(`${field}.expires_at must be an ISO-8601 time`);
		spec.expires_at = new Date(text).toISOString();
	}
	if (value.uses !== undefined) {
		if (!Number.isInteger(value.uses) || (value.uses as number) < 0) throw new AuthorityFormatError(`${field}.uses must be a non-negative integer`);
		spec.uses = value.uses as number;
	}
	return spec;
}

/** A capability from a checked spec, held by `holder` and issued by `issuer`; `fallbackId` when the spec has none. */
export function issueGrant(spec: GrantSpec, issuer: string, holder: string, fallbackId: string): Capability {
	const checked = checkGrantSpec(spec, fallbackId);
	const cap: Capability = {
		id: checked.id ?? fallbackId,
		resource: checked.resource,
		rights: [...checked.rights],
		effect: checked.effect ?? "allow",
		issuer,
		holder,
	};
	if (checked.constraints) cap.constraints = checked.constraints;
	if (checked.expires_at !== undefined) cap.expires_at = checked.expires_at;
	if (checked.uses !== undefined) cap.uses = checked.uses;
	return cap;
}
