/**
 * The shell parser and the permission decision under generated input, as an attacker would try them:
 * any text is decided without throwing, and no rewriting of a command (a wrapper, another quoting,
 * another flag order, the program's full path) is decided more loosely than the plain spelling.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { FUZZ_TIMEOUT_MS, fuzzRuns } from "../../test-support/fuzz-runs.js";
import { PermissionEngine } from "./permission-engine.js";
import { parseRule } from "./rules.js";
import { BRACED_HOME, braced, policy, shellTool } from "./test-support/policy-fixtures.js";
import { type Decision, type DecisionResult, PERMISSION_MODES, type PermissionRule, type PolicyContext, type PolicySandbox } from "./types.js";

let engine: PermissionEngine;
beforeAll(async () => {
	engine = await PermissionEngine.create();
});

const SEVERITY: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };
const decide = (command: string, ctx: PolicyContext): DecisionResult => engine.decide(shellTool(command), { command }, ctx);

/** Every way a host runs the decision: no sandbox said, one that works, one that does not, one required. */
const SANDBOXES: (PolicySandbox | undefined)[] = [undefined, { available: true }, { available: false, reason: "no bubblewrap" }, { available: true, required: true }];
const RULE_SETS: { runDeny: string[]; deny: string[]; ask: string[]; allow: string[] }[] = [
	{ runDeny: [], deny: [], ask: [], allow: [] },
	{ runDeny: ["shell(rm *)"], deny: [], ask: [], allow: [] },
	{ runDeny: [], deny: ["shell(git push *)", "shell(curl *)"], ask: [], allow: ["shell(git *)"] },
	{ runDeny: [], deny: [], ask: ["shell(rm *)"], allow: ["shell(ls *)", "shell(cat *)", "shell(npm test)", "shell(echo *)"] },
	{ runDeny: [], deny: [], ask: [], allow: ["shell"] },
];

const rules = (texts: string[], outcome: Decision): PermissionRule[] => texts.map((t) => parseRule(t, outcome, "fuzz"));
const context = fc.record({ mode: fc.constantFrom(...PERMISSION_MODES), sandbox: fc.constantFrom(...SANDBOXES), rules: fc.constantFrom(...RULE_SETS) }).map(({ mode, sandbox, rules: r }) => {
	const ctx = policy({
		mode,
		runDenyRules: rules(r.runDeny, "deny"),
		// Host rules are first-match: deny, then ask, then allow, as sessions order them.
		hostRules: [...rules(r.deny, "deny"), ...rules(r.ask, "ask"), ...rules(r.allow, "allow")],
	});
	if (sandbox !== undefined) ctx.sandbox = sandbox;
	return ctx;
});

// ---- Arbitrary text ----

const SHELL_TOKENS = [
	"rm", "-rf", "/", "~", "$HOME", "'", '"', "\\", "$(", ")", "`", "(", "{", "}", ";", "&&", "||", "|", "&", ">", ">>", "<", "<<", "<<<", "<<-",
	"EOF", "\n", "\0", "$", "${", "#", "!", "*", "?", "[", "]", "=", "sh", "-c", "bash", "eval", "exec", "sudo", "env", "xargs", "find", "-exec",
	"{}", "\\;", " ", "\t", "\r", "é", "\u202e", "\u{1f600}", "\ufeff", "\u0085", "\u2028", "\u00a0", "\ud800", "x=", ":", "$((", "))", "[[", "]]",
	"if", "then", "fi", "for", "in", "do", "done", "case", "esac", "function", "cat", "~/.ssh/id_rsa", "dd", "of=/dev/sda", "mkfs", ":()", ":|:&",
	"};:", "__proto__", "constructor", "toString", "hasOwnProperty", "@P", braced("x@P"), "$'\\x41'", "$\"x\"", "a[$(ls)]", "--", "-", "..", "../..", "/etc/passwd", ">&2", "2>&1", "&>", "<(", ">(", "coproc",
];
const tokenSoup = fc
	.array(fc.tuple(fc.constantFrom(...SHELL_TOKENS), fc.constantFrom("", " ", "")), { maxLength: 40 })
	.map((parts) => parts.map(([token, sep]) => token + sep).join(""));

const NESTINGS: [open: string, close: string][] = [
	["( ", " )"], ["$(", ")"], ["{ ", "; }"], ['echo "$(', ')"'], ["x=$(", ")"], ["if true; then ", "; fi"], ["$((", "))"], ["${x:-", "}"],
	["true && ", ""], ["sh -c '", "'"], ["`", "`"], ["[[ ", " ]]"], ["while true; do ", "; done"], ["f() { ", "; }"], ["<(", ")"],
];
/** Deep and sometimes unbalanced nesting around a small command. */
const nested = fc
	.record({ pair: fc.constantFrom(...NESTINGS), depth: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 200, max: 3000 })), missing: fc.nat({ max: 3 }), core: fc.constantFrom("ls", "rm -rf /", "cat ~/.ssh/id_rsa", "") })
	.map(({ pair: [open, close], depth, missing, core }) => open.repeat(depth) + core + close.repeat(Math.max(0, depth - missing)));

const anyText = fc.oneof(
	{ weight: 3, arbitrary: tokenSoup },
	{ weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
	{ weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 100 }) },
	{ weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString("latin1")) },
	{ weight: 1, arbitrary: nested },
);

// ---- A grammar of commands ----

interface Core {
	/** Equivalent spellings of one command; the first is the plain one. */
	spellings: string[];
	/** A hardline denial: denied in every mode, under any wrapper and spelling. */
	hardline: boolean;
	/** A simple command (a prefix wrapper like `env` can run it). */
	simple: boolean;
}

const cross = (...lists: string[][]): string[] => lists.reduce<string[]>((acc, list) => acc.flatMap((a) => list.map((b) => (a === "" ? b : `${a} ${b}`))), [""]);

const RM = ["rm", "'rm'", '"rm"', "r\\m", "\\rm", "/bin/rm", "/usr/bin/rm", '"/bin/rm"'];
const RM_FLAGS = ["-rf", "-fr", "-r -f", "-f -r", "-Rf", "-R -f", "--recursive --force", "--force --recursive", "-r --force", "-rf --"];
const READERS = ["cat", "'cat'", "/bin/cat", "head -n 5", "head -5", "tail -n 1", "/usr/bin/tail -n 1", "less", "'head' -n 5"];

const CORES: Core[] = [
	{ spellings: cross(RM, RM_FLAGS, ["/", "'/'", '"/"']), hardline: true, simple: true },
	{ spellings: cross(RM, RM_FLAGS, ["~", "$HOME", '"$HOME"', BRACED_HOME, "~/"]), hardline: true, simple: true },
	{
		spellings: cross(["dd", "/bin/dd", "'dd'", "d\\d"], ["if=/dev/zero of=/dev/sda", "of=/dev/sda if=/dev/zero", "of=/dev/sda bs=1M", "if=/dev/zero of='/dev/sda'", 'of="/dev/sda"']),
		hardline: true,
		simple: true,
	},
	{ spellings: ["mkfs.ext4 /dev/sda1", "mkfs -t ext4 /dev/sda1", "/sbin/mkfs.ext4 /dev/sda1", "'mkfs.ext4' /dev/sda1", "mkfs.ext4 '/dev/sda1'"], hardline: true, simple: true },
	{ spellings: [":(){ :|:& };:", ":(){ :|: & };:", ":() { :|:& }; :"], hardline: true, simple: false },
	{ spellings: cross(READERS, ["~/.ssh/id_rsa", "$HOME/.ssh/id_rsa", '"$HOME/.ssh/id_rsa"', "~/.ssh/'id_rsa'", "~/'.ssh/id_rsa'"]), hardline: true, simple: true },
	{ spellings: cross(RM, RM_FLAGS, ["build", "'build'", '"build"', "./build"]), hardline: false, simple: true },
	{ spellings: ["rm notes.txt", "'rm' notes.txt", "/bin/rm notes.txt", "rm 'notes.txt'", "rm -- notes.txt"], hardline: false, simple: true },
	{ spellings: ["ls -la", "ls -al", "ls -l -a", "ls -a -l", "/bin/ls -la", "'ls' -la", '"ls" -la', "l\\s -la"], hardline: false, simple: true },
	{ spellings: ["git status", "'git' status", "/usr/bin/git status", "git 'status'"], hardline: false, simple: true },
	{ spellings: ["git push origin main", "'git' push origin main", "/usr/bin/git push origin main", "git 'push' origin main", 'git "push" origin main'], hardline: false, simple: true },
	{ spellings: ["cat README.md", "'cat' README.md", "/bin/cat README.md", "cat 'README.md'", "cat -- README.md"], hardline: false, simple: true },
	{ spellings: ["grep -rn foo src", "grep -nr foo src", "grep -r -n foo src", "/bin/grep -rn foo src", "'grep' -rn foo src"], hardline: false, simple: true },
	{ spellings: ["echo hi > out.txt", "echo hi >out.txt", "'echo' hi > out.txt", "echo 'hi' > 'out.txt'"], hardline: false, simple: true },
	{ spellings: ["curl -sSL https://example.com", "curl -Ls https://example.com", "/usr/bin/curl -sSL https://example.com", "'curl' -s -S -L https://example.com"], hardline: false, simple: true },
	{ spellings: ["npm test", "'npm' test", "npm 'test'"], hardline: false, simple: true },
	{ spellings: ["cat ../../outside/secret", "'cat' ../../outside/secret", "/bin/cat ../../outside/secret"], hardline: false, simple: true },
];

/** `s` as one single-quoted shell word. */
const sq = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;
/** `s` as one double-quoted shell word: `\`, `"`, `$` and backquote escaped. */
const dq = (s: string): string => `"${s.replace(/[\\"$`]/g, (c) => `\\${c}`)}"`;

interface Wrapper {
	name: string;
	/** Only wraps a simple command (a prefix such as `env` cannot run `( … )`). */
	needsSimple: boolean;
	/** What comes out is a simple command. */
	givesSimple: boolean;
	wrap: (command: string) => string;
}

const prefix = (word: string): Wrapper => ({ name: word, needsSimple: true, givesSimple: true, wrap: (c) => `${word} ${c}` });
const WRAPPERS: Wrapper[] = [
	prefix("env"),
	prefix("env FOO=1"),
	prefix("nice"),
	prefix("nice -n 5"),
	prefix("timeout 5"),
	prefix("command"),
	prefix("exec"),
	prefix("nohup"),
	prefix("sudo"),
	{ name: "sh -c '…'", needsSimple: false, givesSimple: true, wrap: (c) => `sh -c ${sq(c)}` },
	{ name: 'bash -c "…"', needsSimple: false, givesSimple: true, wrap: (c) => `bash -c ${dq(c)}` },
	{ name: "eval '…'", needsSimple: false, givesSimple: true, wrap: (c) => `eval ${sq(c)}` },
	{ name: 'eval "…"', needsSimple: false, givesSimple: true, wrap: (c) => `eval ${dq(c)}` },
		// A space after `$(`: `$((` would open an arithmetic expansion, which runs no command.
	{ name: "$(…)", needsSimple: false, givesSimple: true, wrap: (c) => `$( ${c} )` },
	{ name: 'echo "$(…)"', needsSimple: false, givesSimple: true, wrap: (c) => `echo "$( ${c} )"` },
	{ name: "x=$(…)", needsSimple: false, givesSimple: false, wrap: (c) => `x=$( ${c} )` },
	{ name: "( … )", needsSimple: false, givesSimple: false, wrap: (c) => `( ${c} )` },
	{ name: "{ …; }", needsSimple: false, givesSimple: false, wrap: (c) => `{ ${c}; }` },
	{ name: "a && …", needsSimple: false, givesSimple: false, wrap: (c) => `true && ${c}` },
	{ name: "… | cat", needsSimple: false, givesSimple: false, wrap: (c) => `${c} | cat` },
	{ name: "true; …", needsSimple: false, givesSimple: false, wrap: (c) => `true; ${c}` },
	{ name: "… &", needsSimple: false, givesSimple: false, wrap: (c) => `${c} &` },
];

/** A spelling of a core inside up to four wrappers that fit it, with the names of those used. */
const wrappedCommand = fc
	.record({
		core: fc.constantFrom(...CORES),
		pick: fc.nat(),
		wrappers: fc.array(fc.constantFrom(...WRAPPERS), { minLength: 1, maxLength: 4 }),
	})
	.map(({ core, pick, wrappers }) => {
		const plain = core.spellings[pick % core.spellings.length]!;
		let text = plain;
		let simple = core.simple;
		const used: string[] = [];
		for (const w of wrappers) {
			if (w.needsSimple && !simple) continue;
			text = w.wrap(text);
			simple = w.givesSimple;
			used.push(w.name);
		}
		return { core, plain, text, used };
	});

const describeDecision = (r: DecisionResult): string => `${r.decision} (${r.layer}: ${r.reason})`;

describe("shell decision under generated input", () => {
	it(
		"decides any text without throwing: random bytes, odd Unicode, NUL, deep or unbalanced nesting",
		() => {
			fc.assert(
				fc.property(anyText, context, (text, ctx) => {
					const parsed = engine.parseCommand(text);
					expect(Array.isArray(parsed.commands)).toBe(true);
					const result = decide(text, ctx);
					expect(["allow", "ask", "deny"]).toContain(result.decision);
					expect(typeof result.reason).toBe("string");
					expect(result.reason).not.toMatch(/[\n\r\v\f\u0085\u2028\u2029]/);
				}),
				fuzzRuns(300, 0.4),
			);
		},
		FUZZ_TIMEOUT_MS,
	);

	it(
		"never decides another spelling of a command (quoting, flag order, full path) more loosely than the plain one",
		() => {
			const core = fc.constantFrom(...CORES).chain((c) => fc.record({ core: fc.constant(c), spelling: fc.constantFrom(...c.spellings) }));
			fc.assert(
				fc.property(core, context, ({ core: c, spelling }, ctx) => {
					const plain = decide(c.spellings[0]!, ctx);
					const other = decide(spelling, ctx);
					if (c.hardline) expect(other.decision, `${spelling}: ${describeDecision(other)}`).toBe("deny");
					expect(SEVERITY[other.decision], `${spelling} is ${describeDecision(other)}, ${c.spellings[0]} is ${describeDecision(plain)}`).toBeGreaterThanOrEqual(SEVERITY[plain.decision]);
				}),
				fuzzRuns(200, 0.2),
			);
		},
		FUZZ_TIMEOUT_MS,
	);

	it(
		"never decides a wrapped command more loosely than the command itself, and a hardline command stays denied in every wrapper",
		() => {
			fc.assert(
				fc.property(wrappedCommand, context, ({ core, plain, text }, ctx) => {
					const bare = decide(plain, ctx);
					const wrapped = decide(text, ctx);
					if (core.hardline) expect(wrapped.decision, `${text}: ${describeDecision(wrapped)}`).toBe("deny");
					expect(SEVERITY[wrapped.decision], `${text} is ${describeDecision(wrapped)}, ${plain} is ${describeDecision(bare)}`).toBeGreaterThanOrEqual(SEVERITY[bare.decision]);
				}),
				fuzzRuns(300, 0.4),
			);
		},
		FUZZ_TIMEOUT_MS,
	);
});

describe("regressions found by fuzzing the shell decision", () => {
	it.each(NESTINGS.filter(([open]) => !["sh -c '", "`", "[[ "].includes(open)))("regression: %s nested 3000 deep is denied as too deep, not a stack overflow (found by fuzzing)", (open, close) => {
		const text = `${open.repeat(3000)}rm -rf /${close.repeat(3000)}`;
		expect(() => engine.parseCommand(text)).not.toThrow();
		expect(decide(text, policy({ mode: "full-access" }))).toMatchObject({ decision: "deny", layer: "malformed", reason: expect.stringContaining("nested too deeply") });
	});

	it("regression: a long && chain past the depth limit is denied, one within it is still decided per command (found by fuzzing)", () => {
		expect(decide(`${"true && ".repeat(3000)}ls`, policy())).toMatchObject({ decision: "deny", layer: "malformed" });
		const within = decide(`${"true && ".repeat(100)}rm -rf /`, policy({ mode: "full-access" }));
		expect(within).toMatchObject({ decision: "deny", layer: "hardline" });
		expect(within.subcommands).toHaveLength(101);
	});

	it("regression: a too-deep script inside sh -c denies the whole command instead of vanishing from it (found by fuzzing)", () => {
		const deep = `${"( ".repeat(100)}rm -rf /${" )".repeat(100)}`;
		expect(decide(`true; sh -c ${sq(deep)}`, policy({ mode: "full-access" }))).toMatchObject({ decision: "deny", layer: "malformed" });
	});

	it("regression: a line break or U+2028 inside a command is shown escaped in the reason, never as a line of its own (found by fuzzing)", () => {
		const script = decide("bash `rm\n", policy({ mode: "full-access" }));
		expect(script.reason).not.toMatch(/[\n\r]/);
		expect(script.reason).toContain("\\n");
		const separator = decide("\u2028rm", policy({ mode: "read-only" }));
		expect(separator.reason).not.toMatch(/\u2028/);
		expect(separator.reason).toContain("\\u2028");
	});

	it("regression: a write target holding U+0085 is named on one line by the reach layer too (found by fuzzing the merged engine)", () => {
		const decided = decide(">>$(\u0085", policy({ mode: "read-only" }));
		expect(decided.reason).not.toMatch(/[\n\r\v\f\u0085\u2028\u2029]/);
		for (const sub of decided.subcommands ?? []) expect(sub.reason).not.toMatch(/[\n\r\v\f\u0085\u2028\u2029]/);
		const file = engine.decide({ name: "write_file", readOnly: false, requiresConfirmation: false }, { path: ".git/hooks/pre\ncommit", content: "x" }, policy({ mode: "full-access" }));
		expect(file.reason).not.toMatch(/[\n\r]/);
	});

	it("regression: a host ask rule does not turn plan mode's denial of an opaque command into a question (found by fuzzing)", () => {
		const ctx = policy({ mode: "plan", hostRules: [parseRule("shell(rm *)", "ask", "fuzz")] });
		expect(decide("git push origin main", ctx)).toMatchObject({ decision: "deny", layer: "mode-rule" });
		expect(decide("$( git push origin main )", ctx).decision).toBe("deny");
		expect(decide("{ git push origin main &; }", ctx).decision).toBe("deny");
		// Elsewhere an opaque command still needs confirmation.
		expect(decide("$( git push origin main )", { ...ctx, mode: "workspace-write" }).decision).toBe("ask");
	});

	it.each(["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"])("regression: a program named %s is an unknown program, not a crash or a wrapper (found by fuzzing)", (name) => {
		// Decided as any program Warden does not know, in every form: alone, and with arguments a wrapper would run.
		for (const mode of PERMISSION_MODES) {
			for (const args of ["", " ls", " rm -rf build"]) {
				const unknown = decide(`frobnicate${args}`, policy({ mode }));
				expect(decide(`${name}${args}`, policy({ mode })).decision, `${mode}: ${name}${args}`).toBe(unknown.decision);
			}
		}
	});
});
