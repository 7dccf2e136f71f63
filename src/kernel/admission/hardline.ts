/**
 * Hardline checks: actions denied whatever the rules and mode say (Algorithm 2, step 1).
 * They read the command's text and lean towards denying; the filesystem is consulted only through
 * the host's optional `resolvePath`, so that a path is judged both as written and as what it really
 * names (a workspace symlink to `~/.ssh/id_rsa` is a credential store).
 */
import { posix } from "node:path";
import picomatch from "picomatch";
import { type PathScope, possibleCwds } from "./command-paths.js";
import { expansionsAsGlob, rootedAtExpansion } from "./shell/expansions.js";
import type { ParsedShell, ShellWord, SimpleCommand } from "./shell/shell-types.js";
import { absolutePath, canonicalPath, expandHome } from "./workspace-path.js";

export interface HardlineScope extends PathScope {
	/** Directory relative paths are resolved against; the workspace unless an earlier `cd` moved it. */
	cwd?: string;
	/**
	 * homesOf(scope), found once for all the rules and words of one sub-command (it may consult the
	 * filesystem, and cannot change while one decision is made).
	 */
	homes?: string[];
	/**
	 * Each word resolved once for all the rules of one sub-command and one cwd: most rules look at
	 * the same operands, and resolving is most of what they cost.
	 */
	resolved?: Map<string, string>;
	/** mentionedPaths of the sub-command, read once for every rule and cwd. */
	mentioned?: readonly string[];
}

export interface HardlineRule {
	name: string;
	/** One line saying why the action is never allowed. */
	reason: string;
	/** Checks one shell sub-command; a returned string says what was found. */
	command?: (command: SimpleCommand, parsed: ParsedShell, scope: HardlineScope) => string | undefined;
	/** Checks a file tool's path (or glob) subject. */
	path?: (path: string, scope: HardlineScope) => string | undefined;
}

export interface HardlineHit {
	rule: HardlineRule;
	detail: string;
}

const SYSTEM_DIRS = [
	"/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/proc", "/root",
	"/run", "/sbin", "/srv", "/sys", "/usr", "/var", "/snap", "/nix", "/System", "/Library", "/Applications",
	"/Users", "/private", "/Volumes",
];
const SYSTEM_DIR_NAMES = SYSTEM_DIRS.map((d) => d.slice(1));
const HOME_CREDENTIALS = [".ssh", ".aws", ".gnupg", ".config/gcloud", ".azure", ".kube/config", ".docker/config.json", ".netrc", ".git-credentials"];
const SYSTEM_CREDENTIALS = ["/etc/shadow", "/etc/gshadow"];
/** Stand-ins for other users' homes when a glob is tested against credential locations. */
const SAMPLE_HOMES = ["/root", "/home/u", "/Users/u"];
const BLOCK_DEVICE = /^\/dev\/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|r?disk\d|md\d|dm-\d|mapper\/)/;
const DISK_FORMATTERS = /^(?:mkfs(?:\..+)?|mke2fs|mkswap|wipefs|blkdiscard)$/;
const DOTENV = /^\.env(?:\..+)?$/;
const GLOB_CHARS = /[*?[]/;
const ALL_WILDCARD = /^[*?.[\]!]+$/;

const hasGlob = (value: string): boolean => GLOB_CHARS.test(value);

function resolve(value: string, scope: HardlineScope): string {
	const memo = scope.resolved;
	let absolute = memo?.get(value);
	if (absolute === undefined) {
		absolute = absolutePath(value, scope.cwd ?? scope.workspace, scope.home);
		memo?.set(value, absolute);
	}
	return absolute;
}

/** The path as written, resolved, and — when the host can see the filesystem — the real path it names. */
function asWrittenAndReal(value: string, scope: HardlineScope): string[] {
	const absolute = resolve(value, scope);
	const real = hasGlob(absolute) ? undefined : scope.resolvePath?.(absolute);
	return real === undefined || real === absolute ? [absolute] : [absolute, real];
}

/** How a hit on a real path is shown: the name used and what it leads to. */
const shown = (value: string, scope: HardlineScope, hit: string): string => {
	const absolute = resolve(value, scope);
	return hit === absolute ? hit : `${absolute} is really ${hit}`;
};

/** The home directory as written and, if it is a symlink, as its real path. */
function homesOf(scope: HardlineScope): string[] {
	if (scope.homes) return scope.homes;
	const home = resolve(scope.home, scope);
	const real = scope.resolvePath?.(home);
	return real === undefined || real === home ? [home] : [home, real];
}

/** Glob segment matchers, compiled once per segment text and options. */
const SEGMENT_MATCHERS = new Map<string, (text: string) => boolean>();
const SEGMENT_MATCHERS_MAX = 512;

function segmentMatches(text: string, segment: string, dot: boolean): boolean {
	const key = `${dot ? "1" : "0"}${segment}`;
	let matcher = SEGMENT_MATCHERS.get(key);
	if (!matcher) {
		// Bounded: segments come from commands, and a long session must not grow this without end.
		if (SEGMENT_MATCHERS.size >= SEGMENT_MATCHERS_MAX) SEGMENT_MATCHERS.clear();
		matcher = picomatch(segment, { dot });
		SEGMENT_MATCHERS.set(key, matcher);
	}
	return matcher(text);
}

/** Every word of a command that might name a file: operands, `--opt=value` and `key=value` tails, redirects. */
function mentionedPaths(command: SimpleCommand): string[] {
	const out: string[] = [];
	for (const word of command.args) {
		out.push(word.value);
		const eq = word.value.indexOf("=");
		if (eq > 0) out.push(word.value.slice(eq + 1));
	}
	for (const r of command.redirects) {
		if (r.kind === "read" || r.kind === "write") out.push(r.target.value);
	}
	return out.filter((p) => p !== "");
}

const ROOT_AND_SYSTEM_DIRS: ReadonlySet<string> = new Set(["/", ...SYSTEM_DIRS]);

/** `/`, the home directory or a top-level system directory — or a glob that covers them or all their entries. */
function isProtectedTarget(value: string, scope: HardlineScope): boolean {
	const home = resolve(scope.home, scope);
	const isProtectedDir = (dir: string): boolean => dir === home || ROOT_AND_SYSTEM_DIRS.has(dir);
	const abs = resolve(value, scope);
	if (!hasGlob(abs)) return isProtectedDir(abs);
	const firstGlob = abs.search(GLOB_CHARS);
	const literalDir = abs.slice(0, abs.lastIndexOf("/", firstGlob)) || "/";
	if (!isProtectedDir(literalDir)) return false;
	const segment = abs.slice(literalDir === "/" ? 1 : literalDir.length + 1).split("/")[0]!;
	if (ALL_WILDCARD.test(segment)) return true;
	return literalDir === "/" && SYSTEM_DIR_NAMES.some((name) => segmentMatches(name, segment, true));
}

/**
 * Every credential location's path holds one of these, so a path without any is none of them; the
 * full check below runs only for the few that have one.
 */
const CREDENTIAL_HINT = /\.ssh|\.aws|\.gnupg|\.config\/gcloud|\.azure|\.kube\/config|\.docker\/config\.json|\.netrc|\.git-credentials|^\/etc\/g?shadow$/;

function credentialIn(absolute: string, homes: readonly string[]): string | undefined {
	if (!CREDENTIAL_HINT.test(absolute)) return undefined;
	if (SYSTEM_CREDENTIALS.includes(absolute)) return absolute;
	for (const base of [...homes, "/root"]) {
		if (!absolute.startsWith(`${base}/`)) continue;
		const rel = absolute.slice(base.length + 1);
		const hit = HOME_CREDENTIALS.find((c) => rel === c || rel.startsWith(`${c}/`));
		if (hit) return absolute;
	}
	const other = /^\/(?:home|Users)\/[^/]+\/(.+)$/.exec(absolute);
	if (other && HOME_CREDENTIALS.some((c) => other[1] === c || other[1]!.startsWith(`${c}/`))) return absolute;
	return undefined;
}

/** A glob segment of only these characters is matched by picomatch exactly when it equals the text. */
const LITERAL_SEGMENT = /^[A-Za-z0-9_.~%=:,-]+$/;

/** Whether a glob could name `target` or something inside it (shell globbing: `*` skips dotfiles). */
function globReaches(globSegments: readonly string[], literal: readonly boolean[], targetSegments: readonly string[]): boolean {
	for (let i = 0; i < targetSegments.length; i++) {
		const segment = globSegments[i];
		if (segment === undefined) return false;
		if (segment === "**") return true;
		const text = targetSegments[i]!;
		if (literal[i] ? segment !== text : !segmentMatches(text, segment, false)) return false;
	}
	return true;
}

/** Every credential location under these homes (and the stand-ins for other users'), split into segments; kept for the last homes asked about. */
let lastLocations: { homes: readonly string[]; locations: string[][] } | undefined;

function credentialLocations(homes: readonly string[]): string[][] {
	const kept = lastLocations?.homes;
	if (kept === undefined || kept.length !== homes.length || kept.some((h, i) => h !== homes[i])) {
		const paths = [...SYSTEM_CREDENTIALS, ...[...homes, ...SAMPLE_HOMES].flatMap((h) => HOME_CREDENTIALS.map((c) => `${h}/${c}`))];
		const locations = paths.map((p) => p.split("/").filter((s) => s !== ""));
		lastLocations = { homes: [...homes], locations };
		return locations;
	}
	return lastLocations!.locations;
}

function credentialPath(value: string, scope: HardlineScope): string | undefined {
	const homes = homesOf(scope);
	const abs = resolve(value, scope);
	if (!hasGlob(abs)) {
		const real = scope.resolvePath?.(abs);
		if (credentialIn(abs, homes) !== undefined) return abs;
		return real !== undefined && real !== abs && credentialIn(real, homes) !== undefined ? `${abs} is really ${real}` : undefined;
	}
	const globSegments = abs.split("/").filter((segment) => segment !== "");
	const literal = globSegments.map((segment) => LITERAL_SEGMENT.test(segment));
	return credentialLocations(homes).some((location) => globReaches(globSegments, literal, location)) ? abs : undefined;
}

/** Whether a file name is, or as a glob may be, a dotenv file's. */
const dotenvName = (base: string): boolean => (hasGlob(base) ? segmentMatches(".env", base, false) : DOTENV.test(base));

function dotenvOutside(value: string, scope: HardlineScope): string | undefined {
	const written = resolve(value, scope);
	// The written path is canonical already: its name rules most words out before the workspace is asked.
	if (dotenvName(written.slice(written.lastIndexOf("/") + 1)) && !canonicalPath(written, scope.workspace, scope.home).inside) return shown(value, scope, written);
	const real = hasGlob(written) ? undefined : scope.resolvePath?.(written);
	if (real === undefined || real === written) return undefined;
	const canonical = canonicalPath(real, scope.workspace, scope.home);
	return !canonical.inside && dotenvName(posix.basename(canonical.absolute)) ? shown(value, scope, real) : undefined;
}

/** A block device, by its name or by what it really is (`ln -s /dev/sda disk; echo x > disk`). */
function blockDevice(value: string, scope: HardlineScope): string | undefined {
	if (BLOCK_DEVICE.test(value)) return value;
	return asWrittenAndReal(value, scope).find((p) => BLOCK_DEVICE.test(p));
}

const flagsOf = (command: SimpleCommand): string[] => command.normalized.flags;
const operandsOf = (command: SimpleCommand): string[] => command.normalized.operands.map((o) => o.value);

function recursiveDelete(command: SimpleCommand, _parsed: ParsedShell, scope: HardlineScope): string | undefined {
	if (command.program === "rm") {
		const flags = flagsOf(command);
		if (!flags.includes("-r") && !flags.includes("-f") && !flags.includes("--no-preserve-root")) return undefined;
		const target = operandsOf(command).find((o) => isProtectedTarget(o, scope));
		return target === undefined ? undefined : `rm ${flags.join(" ")} ${target}`;
	}
	if (command.program === "find") {
		const target = findStarts(command).find((s) => isProtectedTarget(s.value, scope));
		return findDeletes(command) && target !== undefined ? `find ${target.value} deleting` : undefined;
	}
	return undefined;
}

/** The starting points of a `find` (the words before its first expression). */
function findStarts(command: SimpleCommand): ShellWord[] {
	const firstExpression = command.args.findIndex((a) => a.static && (a.value.startsWith("-") || a.value === "(" || a.value === "!"));
	return firstExpression === -1 ? command.args : command.args.slice(0, firstExpression);
}

function findDeletes(command: SimpleCommand): boolean {
	const argv = command.argv;
	return argv.some((a, i) => a === "-delete" || ((a === "-exec" || a === "-execdir") && /^(?:.*\/)?(?:rm|shred|unlink)$/.test(argv[i + 1] ?? "")));
}

/** Arguments that xargs reads from its input (not `find -exec`'s `{}`, whose starting points are known). */
const operandsFromXargs = (command: SimpleCommand): boolean => command.argsFromInput && command.wrappers.includes("xargs");

/**
 * An operand whose target cannot be known before the command runs: one rooted at an expansion
 * (`$X`, `"${X}"/`, `$X/*`, `$(pwd)`), or one whose unknown parts could make it `/`, the home
 * directory or a system directory (`/$X`, `~/$X`, `/usr/$APP`).
 */
function unknownTarget(word: ShellWord, scope: HardlineScope): boolean {
	if (word.static) return false;
	const text = expandHome(word.value, scope.home);
	return rootedAtExpansion(text) || isProtectedTarget(expansionsAsGlob(text), scope);
}

/**
 * Recursive deletion (and shred, and a deleting `find`) whose operands arrive at run time, from
 * xargs' input or from expansions the parser cannot see: `echo ~ | xargs rm -rf`, `rm -rf "$DIR"/*`.
 * Plain `rm -f` is left to the mode: it cannot remove a directory, and `rm -f "$tmp"` is common.
 */
/** The programs the deletion rules look at; any other is passed over before its words are read. */
const DELETERS = new Set(["rm", "shred", "find"]);
const PERMISSION_CHANGERS = new Set(["chmod", "chown", "chgrp"]);
const COPIERS = new Set(["cp", "mv", "install"]);

function unknownTargetDelete(command: SimpleCommand, _parsed: ParsedShell, scope: HardlineScope): string | undefined {
	const program = command.program;
	if (!DELETERS.has(program)) return undefined;
	const operands = program === "find" ? findStarts(command) : command.normalized.operands;
	const deletes =
		(program === "rm" && flagsOf(command).includes("-r")) || program === "shred" || (program === "find" && findDeletes(command));
	if (!deletes) return undefined;
	const what = program === "find" ? "find … deleting" : `${program} ${flagsOf(command).join(" ")}`.trim();
	if (operandsFromXargs(command)) return `${what} on names read from xargs' input`;
	const unknown = operands.find((o) => unknownTarget(o, scope));
	return unknown === undefined ? undefined : `${what} ${unknown.value}`;
}

function recursivePermissions(command: SimpleCommand, _parsed: ParsedShell, scope: HardlineScope): string | undefined {
	if (!PERMISSION_CHANGERS.has(command.program) || !flagsOf(command).includes("-R")) return undefined;
	const target = operandsOf(command).find((o) => isProtectedTarget(o, scope));
	return target === undefined ? undefined : `${command.program} -R ${target}`;
}

function forkBomb(command: SimpleCommand, parsed: ParsedShell): string | undefined {
	const fn = command.inFunction;
	if (fn === undefined || command.program !== fn) return undefined;
	const selfCallsInPipes = parsed.commands.filter((c) => c.inFunction === fn && c.program === fn && c.inPipeline).length;
	if (!command.background && selfCallsInPipes < 2) return undefined;
	return `function ${fn} calls itself ${command.background ? "in the background" : "in a pipeline"}`;
}

function diskWipe(command: SimpleCommand, _parsed: ParsedShell, scope: HardlineScope): string | undefined {
	if (DISK_FORMATTERS.test(command.program)) return `${command.program} formats or wipes a disk`;
	const program = command.program;
	const operands = program === "dd" || program === "shred" || program === "tee" || COPIERS.has(program) ? operandsOf(command) : [];
	if (command.program === "dd") {
		const target = operands.find((o) => o.startsWith("of=") && blockDevice(o.slice(3), scope));
		if (target) return `dd ${target}`;
	}
	if (command.program === "shred") {
		const target = operands.find((o) => o.startsWith("/dev/") || blockDevice(o, scope));
		if (target) return `shred ${target}`;
	}
	const written = command.program === "tee" ? operands : COPIERS.has(command.program) ? operands.slice(-1) : [];
	const device = written.find((o) => blockDevice(o, scope));
	if (device) return `${command.program} onto ${device}`;
	const redirect = command.redirects.find((r) => r.kind === "write" && blockDevice(r.target.value, scope));
	return redirect ? `redirect > ${redirect.target.value}` : undefined;
}

function credentialMention(command: SimpleCommand, _parsed: ParsedShell, scope: HardlineScope): string | undefined {
	for (const p of scope.mentioned ?? mentionedPaths(command)) {
		const hit = credentialPath(p, scope);
		if (hit) return hit;
	}
	return undefined;
}

function dotenvMention(command: SimpleCommand, _parsed: ParsedShell, scope: HardlineScope): string | undefined {
	for (const p of scope.mentioned ?? mentionedPaths(command)) {
		const hit = dotenvOutside(p, scope);
		if (hit) return hit;
	}
	return undefined;
}

export const HARDLINE_RULES: readonly HardlineRule[] = [
	{
		name: "recursive-delete-root",
		reason: "recursive or forced deletion of /, the home directory or a top-level system directory",
		command: recursiveDelete,
	},
	{
		name: "unknown-target-delete",
		reason: "recursive deletion (or shred, or find -delete) of targets that cannot be known before it runs (names from xargs, $VAR, $(...))",
		command: unknownTargetDelete,
	},
	{
		name: "recursive-permissions-root",
		reason: "recursive chmod/chown/chgrp of /, the home directory or a top-level system directory",
		command: recursivePermissions,
	},
	{ name: "fork-bomb", reason: "a shell function that multiplies itself (fork bomb)", command: forkBomb },
	{
		name: "disk-wipe",
		reason: "formatting, wiping or writing a raw disk device",
		command: diskWipe,
		path: (path, scope) => blockDevice(resolve(path, scope), scope),
	},
	{
		name: "credential-store",
		reason: "touches a credential store (~/.ssh, ~/.aws, ~/.gnupg, cloud, kube or docker credentials, ~/.netrc, /etc/shadow)",
		command: credentialMention,
		path: credentialPath,
	},
	{
		name: "dotenv-outside-workspace",
		reason: "touches a .env file outside the workspace",
		command: dotenvMention,
		path: dotenvOutside,
	},
];

/** The scope for one cwd, with the memos its rules share; `homes` carried over where they cannot depend on the cwd. */
function scopeAt(scope: HardlineScope, cwd: string | undefined, homes: string[] | undefined, mentioned?: readonly string[]): HardlineScope {
	// Every field written out: one shape for the scope every rule reads.
	const here: HardlineScope = {
		workspace: scope.workspace,
		home: scope.home,
		resolvePath: scope.resolvePath,
		cwd,
		homes,
		resolved: new Map(),
		mentioned,
	};
	here.homes ??= homesOf(here);
	return here;
}

export function hardlineForCommand(command: SimpleCommand, parsed: ParsedShell, scope: HardlineScope): HardlineHit | undefined {
	// An absolute home resolves the same from every cwd.
	let homes = scope.homes;
	const mentioned = mentionedPaths(command);
	for (const cwd of possibleCwds(command, parsed, scope)) {
		const here = scopeAt(scope, cwd, homes, mentioned);
		if (scope.home.charCodeAt(0) === 0x2f) homes = here.homes;
		for (const rule of HARDLINE_RULES) {
			const detail = rule.command?.(command, parsed, here);
			if (detail !== undefined) return { rule, detail };
		}
	}
	return undefined;
}

export function hardlineForPath(path: string, scope: HardlineScope): HardlineHit | undefined {
	const here = scopeAt(scope, scope.cwd, scope.homes);
	for (const rule of HARDLINE_RULES) {
		const detail = rule.path?.(path, here);
		if (detail !== undefined) return { rule, detail };
	}
	return undefined;
}
