/**
 * Delegation: a child grant made from a parent keeps or narrows it, never widens it. Each field
 * is checked, and anything not provably within the parent is refused with one line.
 */
import { DelegationError } from "./authority-errors.js";
import type { Capability, CapabilityConstraints, GrantEffect } from "./capability.js";
import type { Right } from "./resource.js";
import { patternContains } from "./resource-pattern.js";

export interface DelegationRequest {
	id: string;
	holder: string;
	/** Defaults to the parent's. */
	resource?: string;
	rights?: readonly Right[];
	/** A child may turn allow into ask or deny, or ask into deny; never the other way. */
	effect?: GrantEffect;
	constraints?: CapabilityConstraints;
	expires_at?: string;
	uses?: number;
}

const STRICTNESS: Record<GrantEffect, number> = { allow: 0, ask: 1, deny: 2 };

export function delegate(parent: Capability, request: DelegationRequest): Capability {
	const refuse = (why: string): never => {
		throw new DelegationError(`cannot delegate ${parent.id} as ${request.id}: ${why}`);
	};
	if (parent.effect === "deny") refuse("a deny grant admits nothing to pass on");
	const resource = request.resource ?? parent.resource;
	if (!patternContains(parent.resource, resource)) refuse(`${resource} is not provably within ${parent.resource}`);
	const rights = [...(request.rights ?? parent.rights)];
	const extra = rights.find((r) => !parent.rights.includes(r));
	if (extra !== undefined) refuse(`right ${extra} is not held by the parent (${parent.rights.join(", ")})`);
	if (rights.length === 0) refuse("no rights asked for");
	const effect = request.effect ?? parent.effect;
	if (STRICTNESS[effect] < STRICTNESS[parent.effect]) refuse(`effect ${effect} is looser than the parent's ${parent.effect}`);

	const expires = request.expires_at ?? parent.expires_at;
	if (expires !== undefined && Number.isNaN(Date.parse(expires))) refuse(`expires_at ${expires} is not a time`);
	if (parent.expires_at !== undefined && (expires === undefined || Date.parse(expires) > Date.parse(parent.expires_at))) {
		refuse(`it would outlive the parent (expires ${parent.expires_at})`);
	}
	const uses = request.uses ?? parent.uses;
	if (uses !== undefined && (!Number.isInteger(uses) || uses < 0)) refuse(`uses ${uses} is not a non-negative integer`);
	if (parent.uses !== undefined && (uses === undefined || uses > parent.uses)) refuse(`it would allow more uses than the parent's ${parent.uses}`);

	const constraints = narrowConstraints(parent.constraints, request.constraints, refuse);
	const child: Capability = { id: request.id, resource, rights, effect, issuer: parent.holder, holder: request.holder, parent: parent.id };
	if (constraints) child.constraints = constraints;
	if (expires !== undefined) child.expires_at = new Date(expires).toISOString();
	if (uses !== undefined) child.uses = uses;
	return child;
}

function narrowConstraints(
	parent: CapabilityConstraints | undefined,
	asked: CapabilityConstraints | undefined,
	refuse: (why: string) => never,
): CapabilityConstraints | undefined {
	const out: CapabilityConstraints = { ...(parent ?? {}), ...(asked ?? {}) };
	if (parent?.max_bytes !== undefined && (out.max_bytes === undefined || out.max_bytes > parent.max_bytes)) {
		refuse(`max_bytes ${out.max_bytes ?? "unlimited"} is looser than the parent's ${parent.max_bytes}`);
	}
	if (parent?.read_only_commands && !out.read_only_commands) refuse("the parent admits only read-only commands");
	return Object.keys(out).length === 0 ? undefined : out;
}
