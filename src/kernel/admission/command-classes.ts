/**
 * Which shell sub-commands are known to only read, and which are destructive. Both lists are
 * deliberately short: anything not on them is an ordinary command that a mode may ask about.
 *
 * A reader is read-only only as invoked: the options that make one run a program or write are rows
 * in reader-flags.ts, the environment it may be given is in reader-env.ts, and sed and awk programs
 * are read by sed-script.ts and awk-program.ts. Whether the program named is the system's own (not
 * `./ls`) is a question for the host, answered in program-identity.ts.
 */
import { awkProgramRisk } from "./awk-program.js";
import { unsafeAssignment, unsafeEnvPrefix } from "./reader-env.js";
import { flagName, UNSAFE_FIND_PRIMARIES, unsafeFlag } from "./reader-flags.js";
import { sedScriptRisk } from "./sed-script.js";
import { normalizeArgs } from "./shell/flag-normalization.js";
import type { ShellWord, SimpleCommand } from "./shell/shell-types.js";

/** Programs that only read or print, whatever their arguments (output redirection aside). */
const READERS = new Set([
	"ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "pwd", "echo", "true", "false", "which",
	"whoami", "id", "uname", "stat", "du", "df", "cut", "tr", "diff", "cmp", "comm", "basename", "dirname",
	"realpath", "readlink", "seq", "nl", "od", "hexdump", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum",
	"sha512sum", "b2sum", "cksum", "sum", "type", "column", "rev", "tac", "jq", "printenv", "env", "uptime", "nproc",
	"locale", "tty", "groups", "ps", "free", ":", "numfmt", "expand", "unexpand", "fold", "fmt", "paste", "join",
	"look", "strings", "base32", "expr", "getconf", "[[", "((",
]);

type Check = (c: SimpleCommand) => string | undefined;

/** `awk`'s rows and program check cover its implementations too. */
const AWKS = new Set(["awk", "gawk", "mawk", "nawk"]);
const GLOB = /[*?[]/;

/** The arguments before `--` that are only known at run time: any of them could be an unsafe option. */
function runTimeOption(c: SimpleCommand): ShellWord | undefined {
	for (const a of c.args) {
		if (a.static && a.value === "--") return undefined;
		if (!a.static) return a;
	}
	return undefined;
}

/** The unsafe-option rows for `program` against the command's normalized flags. */
function flagged(c: SimpleCommand, program = c.program): string | undefined {
	const dynamic = runTimeOption(c);
	if (dynamic) return `its argument ${dynamic.value} is only known at run time and could be an option that runs a program or writes`;
	const row = unsafeFlag(program, c.normalized.flags);
	return row ? `${row.flag} ${row.why}` : undefined;
}

/** At most `max` operands, each one word known now (`uniq in out` writes out; `uniq *` may too). */
function operandsAtMost(c: SimpleCommand, max: number, why: string): string | undefined {
	const ops = c.normalized.operands;
	if (ops.length > max || ops.some((o) => !o.static || GLOB.test(o.value))) return why;
	return undefined;
}

/** The values of one option in normalized flags: `-e 1p` and `--expression=1p` → `1p`. */
function optionValues(flags: readonly string[], names: readonly string[]): string[] {
	return flags.filter((f) => names.includes(flagName(f))).map((f) => f.slice(flagName(f).length + 1));
}

function sedCheck(c: SimpleCommand): string | undefined {
	const bad = flagged(c);
	if (bad) return bad;
	const scripts = optionValues(c.normalized.flags, ["-e", "--expression"]);
	if (scripts.length === 0) {
		const first = c.normalized.operands[0];
		if (!first) return "it has no script";
		scripts.push(first.value);
	}
	for (const script of scripts) {
		const risk = sedScriptRisk(script);
		if (risk) return `its script ${risk}`;
	}
	return undefined;
}

function awkCheck(c: SimpleCommand): string | undefined {
	const bad = flagged(c, "awk");
	if (bad) return bad;
	const program = c.normalized.operands[0];
	if (!program) return "it has no program";
	const risk = awkProgramRisk(program.value);
	return risk ? `its program ${risk}` : undefined;
}

function findCheck(c: SimpleCommand): string | undefined {
	const dynamic = c.args.find((a) => !a.static);
	if (dynamic) return `its argument ${dynamic.value} is only known at run time and could be a primary that runs a program or writes`;
	const hit = UNSAFE_FIND_PRIMARIES.find((p) => c.argv.includes(p.primary));
	return hit ? `${hit.primary} ${hit.why}` : undefined;
}

/** `tar tvf a.tar`: the old form bundles the options into the first word, without a dash. */
function tarArgs(c: SimpleCommand): SimpleCommand {
	const first = c.args[0];
	if (!first?.static || !/^[A-Za-z]+$/.test(first.value)) return c;
	const args = [{ value: `-${first.value}`, static: true }, ...c.args.slice(1)];
	return { ...c, args, argv: args.map((a) => a.value), normalized: normalizeArgs("tar", args) };
}

function tarCheck(command: SimpleCommand): string | undefined {
	const c = tarArgs(command);
	const bad = flagged(c);
	if (bad) return bad;
	const flags = c.normalized.flags;
	if (!flags.some((f) => f === "-t" || flagName(f) === "--list")) return "it does not only list an archive";
	const remote = optionValues(flags, ["-f", "--file"]).find((f) => f.includes(":"));
	return remote ? `its archive ${remote} names a remote host, reached by running a remote shell` : undefined;
}

/** `test -v 'a[$(cmd)]'`: bash evaluates the subscript of the variable it tests, running what is inside. */
function testCheck(c: SimpleCommand): string | undefined {
	for (let i = 0; i < c.args.length - 1; i++) {
		const next = c.args[i + 1]!;
		if (c.args[i]!.value === "-v" && (!next.static || next.value.includes("["))) {
			return "-v on an array element makes bash evaluate its subscript, which can run commands";
		}
	}
	return undefined;
}

const CONDITIONAL_READERS: Record<string, Check> = {
	find: findCheck,
	rg: (c) => flagged(c),
	sort: (c) => flagged(c),
	tree: (c) => flagged(c),
	base64: (c) => flagged(c),
	printf: (c) => flagged(c),
	file: (c) => flagged(c),
	date: (c) => flagged(c),
	hostname: (c) => flagged(c) ?? operandsAtMost(c, 0, "with an operand it sets the host name"),
	uniq: (c) => operandsAtMost(c, 1, "its second operand is a file it writes"),
	xxd: (c) => operandsAtMost(c, 1, "its second operand is a file it writes"),
	sed: sedCheck,
	tar: tarCheck,
	test: testCheck,
	"[": testCheck,
	git: gitCheck,
	command: (c) => (c.normalized.flags.some((f) => f === "-v" || f === "-V") ? undefined : "without -v it runs the program it names"),
};
for (const awk of AWKS) CONDITIONAL_READERS[awk] = awkCheck;

const GIT_READERS = new Set([
	"status", "diff", "log", "show", "rev-parse", "ls-files", "ls-tree", "blame", "describe", "shortlog", "cat-file",
	"grep", "rev-list", "whatchanged", "show-ref", "for-each-ref", "merge-base", "name-rev", "count-objects",
]);
/** git's options before the subcommand that take the next word as their value. */
const GIT_GLOBAL_VALUES = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--list-cmds"]);
/** git's options before the subcommand known to change nothing about what it runs. */
const GIT_GLOBAL_HARMLESS = new Set([
	"-P", "--no-pager", "--no-replace-objects", "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs",
	"--icase-pathspecs", "--no-optional-locks", "--no-advice", "--version",
]);
const GIT_LISTING_FLAGS = new Set(["-a", "-r", "-v", "-l", "--list", "--show-current", "--remotes", "--verbose", "--no-color", "--color"]);

interface GitCall {
	globals: string[];
	sub?: string;
	rest: ShellWord[];
}

/** git's global options, its subcommand and the subcommand's arguments; a string says why it cannot be told. */
function splitGit(args: readonly ShellWord[]): GitCall | string {
	const globals: string[] = [];
	for (let i = 0; i < args.length; i++) {
		const w = args[i]!;
		if (!w.static) return `its argument ${w.value} is only known at run time`;
		const v = w.value;
		if (v === "--") return "-- before the subcommand hides which subcommand runs";
		if (!v.startsWith("-")) return { globals, sub: v, rest: args.slice(i + 1) };
		const attached = /^-[cC]./.test(v) ? `${v.slice(0, 2)} ${v.slice(2)}` : undefined;
		if (attached) globals.push(attached);
		else if (GIT_GLOBAL_VALUES.has(v)) globals.push(`${v} ${args[++i]?.value ?? ""}`);
		else globals.push(v);
	}
	return { globals, rest: [] };
}

function gitCheck(c: SimpleCommand): string | undefined {
	const call = splitGit(c.args);
	if (typeof call === "string") return call;
	const global = unsafeFlag("git", call.globals, "global");
	if (global) return `${global.flag} ${global.why}`;
	const unknown = call.globals.find((g) => !GIT_GLOBAL_HARMLESS.has(flagName(g)));
	if (unknown) return `the global option ${flagName(unknown)} is not one this check knows to be harmless`;
	const sub = call.sub;
	if (sub === undefined) return call.globals.includes("--version") ? undefined : "it names no subcommand";
	const dynamic = call.rest.find((w) => !w.static);
	if (dynamic) return `its argument ${dynamic.value} is only known at run time and could be an option that runs a program or writes`;
	const { flags, operands } = normalizeArgs("git", call.rest);
	const row = unsafeFlag("git", flags, sub);
	if (row) return `${row.flag} ${row.why}`;
	if (flags.some((f) => /^--(?:format|pretty)=.*%G/.test(f))) return "a %G format runs gpg to verify signatures";
	if (GIT_READERS.has(sub)) return undefined;
	const rest = operands.map((o) => o.value);
	const listingOnly = flags.every((f) => GIT_LISTING_FLAGS.has(f));
	const listing = (ok: boolean): string | undefined => (ok ? undefined : `git ${sub} as written may change the repository`);
	switch (sub) {
		case "branch":
		case "tag":
			return listing(listingOnly && rest.length === 0);
		case "remote":
			return listing(listingOnly && (rest.length === 0 || (rest.length === 1 && rest[0] === "show") || (rest.length === 2 && rest[0] === "get-url")));
		case "stash":
		case "worktree":
			return listing(rest.length === 1 && rest[0] === "list");
		case "config":
			return listing(flags.some((f) => /^(?:-l|--list|--get|--get-all|--get-regexp)(?:[ =]|$)/.test(f)));
		default:
			return `git ${sub} is not a read-only git subcommand`;
	}
}

const HARMLESS_SINKS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"]);

/** A redirect that writes a file (not a descriptor duplication or /dev/null). */
export function writesFiles(c: SimpleCommand): boolean {
	return c.redirects.some((r) => r.kind === "write" && !HARMLESS_SINKS.has(r.target.value));
}

/** Why the command is not known to only read, or undefined when it is (its program's identity aside). */
export function notReadOnlyBecause(c: SimpleCommand): string | undefined {
	if (c.opaque) return c.opaqueReason ?? "its program is only known at run time";
	if (!c.programKnown) return "its program is only known at run time";
	if (c.privileged) return "it runs with raised privileges";
	if (writesFiles(c)) return "it redirects output to a file";
	if (c.program === "") return unsafeAssignment(c.env);
	const env = unsafeEnvPrefix(c.env);
	if (env) return env;
	if (READERS.has(c.program)) return undefined;
	// Own keys only: a program named `constructor` or `__proto__` must not reach Object.prototype.
	const check = Object.hasOwn(CONDITIONAL_READERS, c.program) ? CONDITIONAL_READERS[c.program] : undefined;
	return check ? check(c) : `${c.program} is not a known read-only program`;
}

/** Known to only read: a listed program, known at parse time, not privileged, writing no file. */
export function isReadOnlyCommand(c: SimpleCommand): boolean {
	return notReadOnlyBecause(c) === undefined;
}

const ALWAYS_DESTRUCTIVE = new Set([
	"dd", "truncate", "shred", "wipefs", "blkdiscard", "mkswap", "mke2fs", "fdisk", "sfdisk", "parted", "sgdisk",
	"shutdown", "reboot", "halt", "poweroff",
]);

function isDestructiveGit(c: SimpleCommand): boolean {
	const flags = c.normalized.flags;
	const [sub, ...rest] = c.normalized.operands.map((o) => o.value);
	switch (sub) {
		case "push":
			return (
				flags.some((f) => f === "-f" || f.startsWith("--force-with-lease") || f === "--mirror" || f === "-d" || f === "--prune") ||
				rest.some((r) => r.startsWith("+") || r.startsWith(":"))
			);
		case "reset":
			return flags.includes("--hard");
		case "clean":
			return flags.includes("-f");
		case "checkout":
			return flags.includes("-f");
		case "branch":
			return flags.includes("-D") || (flags.includes("-d") && flags.includes("-f"));
		case "stash":
			return rest[0] === "drop" || rest[0] === "clear";
		case "restore":
			return !flags.includes("--staged") && !flags.includes("-S");
		case "filter-branch":
		case "filter-repo":
			return true;
		default:
			return false;
	}
}

/** Deletes or overwrites data in a way that is hard to undo. */
export function isDestructiveCommand(c: SimpleCommand): boolean {
	const flags = c.normalized.flags;
	if (ALWAYS_DESTRUCTIVE.has(c.program) || /^mkfs(?:\..+)?$/.test(c.program)) return true;
	switch (c.program) {
		case "rm":
			return flags.includes("-r");
		case "chmod":
		case "chown":
		case "chgrp":
			return flags.includes("-R");
		case "find":
			return c.argv.includes("-delete");
		case "git":
			return isDestructiveGit(c);
		default:
			return false;
	}
}
