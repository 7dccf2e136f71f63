/**
 * The capability set a session holds: the host's grants when it gives any, else its mode's preset.
 * Host grants usually describe the tools' world (files, commands); a session that could not reach
 * its model or its host would be useless, so the mode's `llm:*` and `human:*` grants are added for
 * each of those kinds the host's own allow or ask grants do not name. A host that names the kind
 * decides it alone; a host deny grant still beats the preset.
 */
import type { PermissionMode } from "../admission/types.js";
import { AuthorityFormatError } from "./authority-errors.js";
import { type Capability, checkGrantSpec, issueGrant } from "./capability.js";
import { MODE_PRESETS } from "./mode-presets.js";
import { type ResourceKind, resourceKind } from "./resource.js";

// Memory too: the session's own notebook in the state dir, which host grants about files and commands do not mean to take away.
const CHANNEL_KINDS: readonly ResourceKind[] = ["llm", "human", "memory"];

export function sessionGrants(mode: PermissionMode, grants: readonly unknown[] | undefined, holder: string): Capability[] {
	const preset = MODE_PRESETS[mode].map((spec, i) => issueGrant(spec, `mode:${mode}`, holder, `mode:${mode}:${i + 1}`));
	if (grants === undefined) return preset;
	if (!Array.isArray(grants)) throw new AuthorityFormatError("grants must be a list of { resource, rights, … }");
	const issued = grants.map((g, i) => issueGrant(checkGrantSpec(g, `grants[${i}]`), "host", holder, `grant-${i + 1}`));
	const ids = new Set<string>();
	for (const g of issued) {
		if (ids.has(g.id)) throw new AuthorityFormatError(`grants: two grants share the id ${g.id}`);
		ids.add(g.id);
	}
	const named = new Set(issued.filter((g) => g.effect !== "deny").map((g) => resourceKind(g.resource)));
	const channels = preset.filter((g) => {
		const kind = resourceKind(g.resource);
		return kind !== undefined && CHANNEL_KINDS.includes(kind) && !named.has(kind);
	});
	return [...issued, ...channels];
}
