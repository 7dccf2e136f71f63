/**
 * What a sub-agent may hold: each of its parent's grants delegated to it (so never more, checked
 * by delegate()), narrowed to reads and read-only commands when its mode is stricter than the
 * parent's. Deny grants pass down as they are: they only take authority away.
 */
import type { PermissionMode } from "../kernel/admission/types.js";
import type { Authority } from "../kernel/authority/authority.js";
import type { Capability } from "../kernel/authority/capability.js";
import { delegate } from "../kernel/authority/delegate.js";

/** read-only and plan admit the same kinds of effect, so neither loosens the other. */
const RANK: Record<PermissionMode, number> = { "read-only": 0, plan: 0, "workspace-write": 1, "full-access": 2 };

export function isMorePermissive(mode: PermissionMode, than: PermissionMode): boolean {
	return RANK[mode] > RANK[than];
}

/** Throws DelegationError if any grant could not be passed on within its parent. */
export function childGrants(parent: Authority, parentMode: PermissionMode, childMode: PermissionMode, holder: string, tag: string): Capability[] {
	const readsOnly = RANK[childMode] === 0 && RANK[parentMode] > 0;
	const out: Capability[] = [];
	for (const g of parent.grants) {
		const id = `${tag}:${g.id}`;
		if (g.effect === "deny") {
			out.push({ ...g, id, issuer: g.holder, holder, parent: g.id });
			continue;
		}
		let rights = [...g.rights];
		let constraints = g.constraints;
		if (readsOnly) {
			// Reaching the model and the host is not a write: a read-only child keeps that egress.
			const channel = g.resource.startsWith("llm:") || g.resource.startsWith("human:");
			rights = rights.filter((r) => r === "read" || r === "exec" || (channel && r === "egress"));
			if (rights.includes("exec")) constraints = { ...(g.constraints ?? {}), read_only_commands: true };
		}
		if (rights.length === 0) continue;
		// A counted grant passes on what is left of it, not its original count.
		const left = parent.usesLeft(g.id);
		out.push(delegate(g, { id, holder, rights, ...(constraints ? { constraints } : {}), ...(left === undefined ? {} : { uses: left }) }));
	}
	return out;
}
