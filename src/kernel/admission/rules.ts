/**
 * Permission rules as users write them — `shell`, `shell(git push *)`, `write_file(src/**)`,
 * `mcp__github__*` — parsed into PermissionRule values and matched against a call's subject.
 */
import picomatch from "picomatch";
import { CommandPatternError, type CommandPattern, type MatchBreadth, matchCommand, parseCommandPattern } from "./command-pattern.js";
import { wordGlob } from "./glob-match.js";
import type { SimpleCommand } from "./shell/shell-types.js";
import type { Decision, PermissionRule } from "./types.js";
import { type CanonicalPath, canonicalPath } from "./workspace-path.js";

export class RuleSyntaxError extends Error {
	override name = "RuleSyntaxError";
}

/** What a rule's pattern is compared with, after the engine canonicalized the call's subject. */
export type RuleTarget =
	| { kind: "path"; path: CanonicalPath }
	| {
			kind: "command";
			command: SimpleCommand;
			/** A file the command names that is, or may be, outside the workspace (found by the engine for mode rules). */
			outside?: string;
			/** Why the engine found the command not read-only beyond its own text (its program is not the system's). */
			notSystemProgram?: string;
	  }
	| { kind: "pattern"; value: string };

export interface RuleScope {
	workspace: string;
	home: string;
}

const RULE = /^([^()\s]+)\s*(?:\(([\s\S]*)\))?$/;
const TOOL_NAME = /^[A-Za-z0-9_.*?:-]+$/;
const OUTCOMES: readonly Decision[] = ["allow", "ask", "deny"];

/** Parse `tool` or `tool(pattern)`; throws a RuleSyntaxError naming the rule when it is not valid. */
export function parseRule(text: string, outcome: Decision, source: string): PermissionRule {
	const trimmed = text.trim();
	const fail = (why: string): never => {
		// Quoted as JSON: a rule's text can hold a line break, and the error is one line.
		throw new RuleSyntaxError(`invalid permission rule ${JSON.stringify(text)} (from ${source}): ${why}`);
	};
	if (!OUTCOMES.includes(outcome)) fail(`outcome must be allow, ask or deny, not "${String(outcome)}"`);
	const m = RULE.exec(trimmed);
	if (!m) return fail("expected tool or tool(pattern)");
	const tool = m[1]!;
	if (!TOOL_NAME.test(tool)) fail(`${JSON.stringify(tool)} is not a tool name or tool-name glob`);
	const rule: PermissionRule = { tool, outcome, source, text: trimmed };
	if (m[2] === undefined) return rule;
	const pattern = m[2].trim();
	if (pattern === "") fail("the pattern inside the parentheses is empty");
	if (tool === "shell") {
		try {
			parseCommandPattern(pattern);
		} catch (err) {
			if (err instanceof CommandPatternError) fail(err.message);
			throw err;
		}
	}
	rule.pattern = pattern;
	return rule;
}

export function toolMatches(rule: PermissionRule, toolName: string): boolean {
	return wordGlob(rule.tool, toolName);
}

const commandPatterns = new Map<string, CommandPattern>();

function commandPattern(text: string): CommandPattern {
	let compiled = commandPatterns.get(text);
	if (!compiled) {
		compiled = parseCommandPattern(text);
		if (commandPatterns.size > 1000) commandPatterns.clear();
		commandPatterns.set(text, compiled);
	}
	return compiled;
}

const globMatchers = new Map<string, (value: string) => boolean>();

function globMatcher(glob: string, bash: boolean): (value: string) => boolean {
	const key = `${bash ? "b" : "p"}\0${glob}`;
	let matcher = globMatchers.get(key);
	if (!matcher) {
		matcher = picomatch(glob, { dot: true, bash });
		if (globMatchers.size > 1000) globMatchers.clear();
		globMatchers.set(key, matcher);
	}
	return matcher;
}

/** Path patterns canonicalized for the last workspace and home asked about: the same rules are matched call after call. */
let patternScope = { workspace: "", home: "", patterns: new Map<string, CanonicalPath>() };

function canonicalPattern(pattern: string, scope: RuleScope): CanonicalPath {
	if (patternScope.workspace !== scope.workspace || patternScope.home !== scope.home) {
		patternScope = { workspace: scope.workspace, home: scope.home, patterns: new Map() };
	}
	let canonical = patternScope.patterns.get(pattern);
	if (canonical === undefined) {
		canonical = canonicalPath(pattern, scope.workspace, scope.home);
		if (patternScope.patterns.size > 1000) patternScope.patterns.clear();
		patternScope.patterns.set(pattern, canonical);
	}
	return canonical;
}

/** A path pattern is canonicalized like a path: `src/**`, `./src/**` and `/ws/src/**` are the same rule. */
function matchPath(pattern: string, path: CanonicalPath, scope: RuleScope): boolean {
	const canonical = canonicalPattern(pattern, scope);
	if (canonical.inside !== path.inside) return false;
	if (canonical.inside) return globMatcher(canonical.relative!, false)(path.relative!);
	return globMatcher(canonical.absolute, false)(path.absolute);
}

/**
 * Whether the rule applies to this tool and subject. A rule without a pattern matches any
 * arguments; a rule with a pattern never matches a call that has no subject.
 */
export function ruleMatches(
	rule: PermissionRule,
	toolName: string,
	target: RuleTarget | undefined,
	scope: RuleScope,
	breadth: MatchBreadth,
): boolean {
	if (!toolMatches(rule, toolName)) return false;
	if (rule.pattern === undefined) return true;
	if (!target) return false;
	switch (target.kind) {
		case "command": {
			let compiled: CommandPattern;
			try {
				compiled = commandPattern(rule.pattern);
			} catch (err) {
				// A pattern that is not a command (only possible for tool globs such as `*(…)`) cannot allow; it still restricts.
				if (err instanceof CommandPatternError) return breadth === "broad";
				throw err;
			}
			return matchCommand(compiled, target.command, breadth);
		}
		case "path":
			return matchPath(rule.pattern, target.path, scope);
		case "pattern":
			return globMatcher(rule.pattern, true)(target.value);
	}
}

/** Allow rules match exactly; ask and deny rules match whatever the command could turn out to be. */
export function breadthFor(outcome: Decision): MatchBreadth {
	return outcome === "allow" ? "exact" : "broad";
}
