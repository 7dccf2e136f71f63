/**
 * A prefix index over resource patterns, so a lookup costs about the same with a thousand patterns
 * as with ten. Patterns are filed by kind, then in a trie under their literal prefix (the text before
 * the first glob character, `literalPrefix`). Every resource a pattern matches starts with that
 * prefix, so walking the resource down its kind's trie passes every pattern that can match it.
 *
 * The index narrows and never decides: it returns candidates, a superset of the matching patterns,
 * as the positions they were added at, ascending. Callers still test each candidate, in that order,
 * so rules where the first match wins, or where the grant named is the first of its kind, keep the
 * order they were written in.
 */
import { type ResourceKind, resourceKind } from "./resource.js";
import { literalPrefix, type ResourcePattern } from "./resource-pattern.js";

interface TrieNode {
	next: Map<string, TrieNode>;
	/** Positions of the patterns whose literal prefix ends here, ascending. */
	here: number[];
}

const NONE: readonly number[] = Object.freeze([]);

function trieNode(): TrieNode {
	return { next: new Map(), here: [] };
}

export class PatternIndex {
	private readonly roots = new Map<ResourceKind, TrieNode>();
	private last = -1;

	/** Files a pattern at `position`; positions must be added in ascending order. */
	add(pattern: ResourcePattern, position: number): void {
		if (!(position > this.last)) throw new RangeError(`pattern positions must ascend: ${position} after ${this.last}`);
		this.last = position;
		let at: TrieNode | undefined = this.roots.get(pattern.kind);
		if (!at) {
			at = trieNode();
			this.roots.set(pattern.kind, at);
		}
		const prefix = literalPrefix(pattern);
		for (let k = 0; k < prefix.length; k++) {
			const c = prefix[k]!;
			let child: TrieNode | undefined = at.next.get(c);
			if (!child) {
				child = trieNode();
				at.next.set(c, child);
			}
			at = child;
		}
		at.here.push(position);
	}

	/** Positions, ascending, of the patterns that may match the canonical resource: every matching one is among them. */
	candidates(resource: string): readonly number[] {
		const kind = resourceKind(resource);
		if (kind === undefined) return NONE;
		let at = this.roots.get(kind);
		if (!at) return NONE;
		let found: readonly number[] = at.here;
		let merged: number[] | undefined;
		// Code units, as the prefix was filed and as the pattern's tokens are read.
		for (let k = kind.length + 1; k < resource.length; k++) {
			at = at.next.get(resource[k]!);
			if (!at) break;
			if (at.here.length === 0) continue;
			if (found.length === 0) found = at.here;
			else {
				merged ??= [...found];
				merged.push(...at.here);
			}
		}
		// Each trie node holds ascending positions; only a walk through several needs re-sorting.
		return merged ? merged.sort((a, b) => a - b) : found;
	}
}
