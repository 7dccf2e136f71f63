/**
 * Finding, in the parse tree, the words whose expansion runs code no command node shows: bash
 * evaluates prompt expansions, indirections, array subscripts and arithmetic on values, and a
 * command marked here is opaque, so no mode auto-allows it. The substitutions it does show are
 * walked as commands of their own and are not looked into here.
 */
import { arithmeticRisk, executingExpansion } from "./expansions.js";
import type { SyntaxNode as Node } from "./syntax-tree.js";

/** Subtrees that expand nothing (single quotes, comments) or whose commands are walked separately. */
const NOT_EXPANDED_HERE = new Set(["command_substitution", "process_substitution", "raw_string", "ansi_c_string", "comment"]);
const EXPANDING = new Set(["expansion", "arithmetic_expansion"]);
/** `[[ … ]]` operators that evaluate both operands as arithmetic. */
const ARITHMETIC_TESTS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);

function children(node: Node): Node[] {
	return node.namedChildren.filter((c): c is Node => c !== null);
}

/** Why expanding the words under `node` could run code that no command substitution shows, or undefined. */
export function executesIn(node: Node): string | undefined {
	if (EXPANDING.has(node.type)) return executingExpansion(node.text);
	if (NOT_EXPANDED_HERE.has(node.type)) return undefined;
	for (const child of children(node)) {
		const risk = executesIn(child);
		if (risk) return risk;
	}
	return undefined;
}

const unquote = (text: string): string => text.replace(/["']/g, "");

/** `[[ -v a[$(cmd)] ]]` and `[[ $x -eq 0 ]]` evaluate subscripts and values as arithmetic. */
export function testCommandRisk(node: Node): string | undefined {
	const found = executesIn(node);
	if (found) return found;
	const stack = [node];
	while (stack.length > 0) {
		const n = stack.pop()!;
		if (n.type === "unary_expression" && n.child(0)?.text === "-v") {
			const operand = children(n).at(-1)?.text ?? "";
			if (/[[$`]/.test(operand)) return "[[ -v ]] on an array element evaluates its subscript, which can run commands";
		}
		if (n.type === "binary_expression" && ARITHMETIC_TESTS.has(n.childForFieldName("operator")?.text ?? "")) {
			for (const side of ["left", "right"]) {
				const risk = arithmeticRisk(unquote(n.childForFieldName(side)?.text ?? ""));
				if (risk) return `[[ … ]] compares as arithmetic: ${risk}`;
			}
		}
		stack.push(...children(n));
	}
	return undefined;
}

/** `(( … ))` and the header of `for (( … ))`: the text between the double parentheses is arithmetic. */
export function arithmeticCommandRisk(node: Node): string | undefined {
	const found = executesIn(node);
	if (found) return found;
	const open = node.text.indexOf("((");
	const close = node.type === "c_style_for_statement" ? node.text.indexOf("))", open) : node.text.lastIndexOf("))");
	if (open === -1 || close === -1) return "its arithmetic does not parse";
	return arithmeticRisk(node.text.slice(open + 2, close).replace(/;/g, " "));
}
