/**
 * A parse tree copied out of tree-sitter's WebAssembly memory into plain objects, in one pass of a
 * tree cursor. Every property read on a web-tree-sitter Node is a call into wasm that marshals the
 * node and allocates (`children` builds a fresh array each time, `text` re-slices the source), and
 * the shell walk reads each node many times; here each node is read from wasm once, and its text is
 * sliced from the source only when asked for.
 */
import type { Tree } from "web-tree-sitter";

/** The part of web-tree-sitter's Node the shell walk reads, with children that are never null. */
export class SyntaxNode {
	readonly children: SyntaxNode[] = [];
	/** Field name of each child, by position (null where the grammar names none). */
	private readonly fields: (string | null)[] = [];
	private named: SyntaxNode[] | undefined;

	constructor(
		readonly type: string,
		readonly isNamed: boolean,
		readonly parent: SyntaxNode | null,
		private readonly source: string,
		private readonly start: number,
		private readonly end: number,
	) {}

	get text(): string {
		return this.source.slice(this.start, this.end);
	}

	get namedChildren(): SyntaxNode[] {
		this.named ??= this.children.filter((c) => c.isNamed);
		return this.named;
	}

	child(index: number): SyntaxNode | null {
		return this.children[index] ?? null;
	}

	childForFieldName(name: string): SyntaxNode | null {
		const i = this.fields.indexOf(name);
		return i === -1 ? null : this.children[i]!;
	}

	fieldNameForChild(index: number): string | null {
		return this.fields[index] ?? null;
	}

	/** Building only: appends a child under its field name. */
	adopt(child: SyntaxNode, field: string | null): void {
		this.children.push(child);
		this.fields.push(field);
	}
}

export interface CopiedTree {
	root: SyntaxNode;
	hasError: boolean;
}

/**
 * The tree as plain objects, or undefined when it has more than `depthLimit` levels: the copy is
 * iterative, so a hostile depth costs no stack, and the walk that follows recurses only over trees
 * known to be shallow enough.
 */
export function copyTree(tree: Tree, source: string, depthLimit: number): CopiedTree | undefined {
	const cursor = tree.walk();
	try {
		const fields = tree.language.fields;
		const types = tree.language.types;
		const make = (parent: SyntaxNode | null): SyntaxNode =>
			new SyntaxNode(types[cursor.nodeTypeId] || "ERROR", cursor.nodeIsNamed, parent, source, cursor.startIndex, cursor.endIndex);
		const root = make(null);
		let current = root;
		let depth = 0;
		for (;;) {
			if (cursor.gotoFirstChild()) {
				if (++depth > depthLimit) return undefined;
				const child = make(current);
				current.adopt(child, fields[cursor.currentFieldId] ?? null);
				current = child;
				continue;
			}
			for (;;) {
				if (cursor.gotoNextSibling()) {
					const parent = current.parent!;
					const sibling = make(parent);
					parent.adopt(sibling, fields[cursor.currentFieldId] ?? null);
					current = sibling;
					break;
				}
				if (!cursor.gotoParent()) return { root, hasError: tree.rootNode.hasError };
				current = current.parent!;
				depth--;
			}
		}
	} finally {
		cursor.delete();
	}
}
