/** The capability set a session holds: the host's grants when it gives any, else its mode's preset. */
import type { PermissionMode } from "../admission/types.js";
import { AuthorityFormatError } from "./authority-errors.js";
import { type Capability, checkGrantSpec, issueGrant } from "./capability.js";
import { MODE_PRESETS } from "./mode-presets.js";

export function sessionGrants(mode: PermissionMode, grants: readonly unknown[] | undefined, holder: string): Capability[] {
	if (grants === undefined) return MODE_PRESETS[mode].map((spec, i) => issueGrant(spec, `mode:${mode}`, holder, `mode:${mode}:${i + 1}`));
	if (!Array.isArray(grants)) throw new AuthorityFormatError("grants must be a list of { resource, rights, … }");
	const issued = grants.map((g, i) => issueGrant(checkGrantSpec(g, `grants[${i}]`), "host", holder, `grant-${i + 1}`));
	const ids = new Set<string>();
	for (const g of issued) {
		if (ids.has(g.id)) throw new AuthorityFormatError(`grants: two grants share the id ${g.id}`);
		ids.add(g.id);
	}
	return issued;
}
