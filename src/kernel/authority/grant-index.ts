/**
 * Which held grants match an access request, found through one prefix index per right instead of
 * a scan over every grant. The answer is the same list, in the same order, as `scanMatching`, the
 * plain scan it replaces (a property test holds the two equal): admission's order-dependent parts
 * (the deny named, the first miss reported, the uncounted grant preferred) read it in that order.
 *
 * Grants are fixed when an authority is made, so the index is built once. Expiry and use counts are
 * not part of it: they are checked on each matching grant at the time of the request.
 */
import type { Capability } from "./capability.js";
import { PatternIndex } from "./pattern-index.js";
import type { AccessRequest, Right } from "./resource.js";
import { parsePattern, patternMatches, type ResourcePattern } from "./resource-pattern.js";

/** The grants that match the request, in the order held, by looking at every one. */
export function scanMatching(grants: readonly Capability[], request: AccessRequest): Capability[] {
	return grants.filter((g) => g.rights.includes(request.right) && patternMatches(g.resource, request.resource));
}

export class GrantIndex {
	private readonly grants: readonly Capability[];
	private readonly patterns: (ResourcePattern | undefined)[];
	private readonly byRight = new Map<Right, PatternIndex>();
	/**
	 * A grant whose pattern does not parse (only possible for one built by hand, not issued) makes
	 * the scan throw for every request of its rights; the first such error per right is kept to
	 * throw at the same moments.
	 */
	private readonly broken = new Map<Right, unknown>();

	constructor(grants: readonly Capability[]) {
		this.grants = grants;
		this.patterns = grants.map((g) => {
			try {
				return parsePattern(g.resource);
			} catch (err) {
				for (const right of g.rights) if (!this.broken.has(right)) this.broken.set(right, err);
				return undefined;
			}
		});
		grants.forEach((g, i) => {
			const pattern = this.patterns[i];
			if (pattern === undefined) return;
			for (const right of new Set(g.rights)) {
				let index = this.byRight.get(right);
				if (!index) {
					index = new PatternIndex();
					this.byRight.set(right, index);
				}
				index.add(pattern, i);
			}
		});
	}

	/** The grants that match the request, in the order held: the same list as `scanMatching`. */
	matching(request: AccessRequest): Capability[] {
		if (this.broken.has(request.right)) throw this.broken.get(request.right);
		const index = this.byRight.get(request.right);
		if (!index) return [];
		const out: Capability[] = [];
		for (const i of index.candidates(request.resource)) {
			if (patternMatches(this.patterns[i]!, request.resource)) out.push(this.grants[i]!);
		}
		return out;
	}
}
