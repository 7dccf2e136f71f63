/**
 * Rules looked up, not scanned: a rule list is indexed by the tool names its rules match and,
 * for a command subject, by the program each `shell(…)` pattern names. A decision then tries only
 * the rules that could match, in the list's own order, so first-match semantics are kept and a
 * thousand rules for other programs cost what none do.
 *
 * The index holds only what a rule can never match: a rule whose tool glob does not match the
 * tool, or whose pattern names another literal program (matchCommand requires the program to
 * match). Every candidate is still matched in full by ruleMatches.
 */
import { CommandPatternError, parseCommandPattern } from "./command-pattern.js";
import { toolMatches } from "./rules.js";
import type { PermissionRule } from "./types.js";

/** Where a rule sits in its list, and the literal program its command pattern requires (undefined: any program may match). */
interface Entry {
	rule: PermissionRule;
	program: string | undefined;
}

/** The rules of one list that match one tool name, in list order, with their command buckets. */
export class ToolRules {
	/** Rules whose pattern may match a command of any program: no pattern, `*`, a glob program, or not a command pattern. */
	private readonly anyProgram: number[] = [];
	private readonly byProgram = new Map<string, number[]>();
	private readonly merged = new Map<string, readonly PermissionRule[]>();
	/** Every rule for the tool, in list order. */
	readonly all: readonly PermissionRule[];

	constructor(private readonly entries: readonly Entry[]) {
		this.all = entries.map((e) => e.rule);
		entries.forEach((e, i) => {
			if (e.program === undefined) this.anyProgram.push(i);
			else {
				const bucket = this.byProgram.get(e.program);
				if (bucket) bucket.push(i);
				else this.byProgram.set(e.program, [i]);
			}
		});
	}

	/** The first rule for the tool, if any. */
	get first(): PermissionRule | undefined {
		return this.entries[0]?.rule;
	}

	/** The rules that could match a command whose program is `program`, in list order. */
	forProgram(program: string): readonly PermissionRule[] {
		let rules = this.merged.get(program);
		if (rules === undefined) {
			rules = mergeInOrder(this.anyProgram, this.byProgram.get(program) ?? []).map((i) => this.entries[i]!.rule);
			// Bounded: program names come from commands, and a long session must not grow this without end.
			if (this.merged.size >= MERGED_KEPT) this.merged.clear();
			this.merged.set(program, rules);
		}
		return rules;
	}
}

const MERGED_KEPT = 512;
const TOOLS_KEPT = 256;

function mergeInOrder(a: readonly number[], b: readonly number[]): number[] {
	const out: number[] = [];
	let i = 0;
	let j = 0;
	while (i < a.length || j < b.length) {
		if (j >= b.length || (i < a.length && a[i]! < b[j]!)) out.push(a[i++]!);
		else out.push(b[j++]!);
	}
	return out;
}

/** The literal program a rule's command pattern requires, or undefined when a command of any program may match it. */
function requiredProgram(rule: PermissionRule): string | undefined {
	if (rule.pattern === undefined) return undefined;
	try {
		const pattern = parseCommandPattern(rule.pattern);
		if (pattern.any || pattern.program.includes("*") || pattern.program.includes("?")) return undefined;
		return pattern.program;
	} catch (err) {
		// Not a command pattern: ruleMatches decides what it means for each breadth.
		if (err instanceof CommandPatternError) return undefined;
		throw err;
	}
}

class RuleIndex {
	private readonly tools = new Map<string, ToolRules>();
	private programs: (string | undefined)[] | undefined;
	/** The list as indexed, element by element. */
	private readonly snapshot: readonly PermissionRule[];

	constructor(rules: readonly PermissionRule[]) {
		this.snapshot = [...rules];
	}

	forTool(toolName: string): ToolRules {
		let found = this.tools.get(toolName);
		if (found === undefined) {
			this.programs ??= this.snapshot.map(requiredProgram);
			const programs = this.programs;
			const entries: Entry[] = [];
			this.snapshot.forEach((rule, i) => {
				if (toolMatches(rule, toolName)) entries.push({ rule, program: programs[i] });
			});
			found = new ToolRules(entries);
			if (this.tools.size >= TOOLS_KEPT) this.tools.clear();
			this.tools.set(toolName, found);
		}
		return found;
	}

	/** The list still holds the rules it was indexed from (a rule list is a value, but a stale index must never decide). */
	current(rules: readonly PermissionRule[]): boolean {
		const kept = this.snapshot;
		if (kept.length !== rules.length) return false;
		for (let i = 0; i < kept.length; i++) if (kept[i] !== rules[i]) return false;
		return true;
	}
}

const indexes = new WeakMap<readonly PermissionRule[], RuleIndex>();

/** The rules of `rules` that match the tool name, indexed; built once per list and tool name. */
export function rulesFor(rules: readonly PermissionRule[], toolName: string): ToolRules {
	let index = indexes.get(rules);
	if (index === undefined || !index.current(rules)) {
		index = new RuleIndex(rules);
		indexes.set(rules, index);
	}
	return index.forTool(toolName);
}
