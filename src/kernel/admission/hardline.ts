/**
 * Hardline checks: actions denied whatever the rules and mode say (Algorithm 2, step 1).
 * They are purely textual — the filesystem is not consulted — and lean towards denying.
 */
import { posix } from "node:path";
import picomatch from "picomatch";
import type { ParsedShell, SimpleCommand } from "./shell/shell-types.js";
import { canonicalPath } from "./workspace-path.js";

export interface HardlineScope {
	workspace: string;
	home: string;
	/** Directory relative paths are resolved against; the workspace unless an earlier `cd` moved it. */
	cwd?: string;
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
	return canonicalPath(value, scope.cwd ?? scope.workspace, scope.home).absolute;
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

/** `/`, the home directory or a top-level system directory — or a glob that covers them or all their entries. */
function isProtectedTarget(value: string, scope: HardlineScope): boolean {
	const home = resolve(scope.home, scope);
	const protectedDirs = new Set(["/", home, ...SYSTEM_DIRS]);
	const abs = resolve(value, scope);
	if (!hasGlob(abs)) return protectedDirs.has(abs);
	const firstGlob = abs.search(GLOB_CHARS);
	const literalDir = abs.slice(0, abs.lastIndexOf("/", firstGlob)) || "/";
	if (!protectedDirs.has(literalDir)) return false;
	const segment = abs.slice(literalDir === "/" ? 1 : literalDir.length + 1).split("/")[0]!;
	if (ALL_WILDCARD.test(segment)) return true;
	return literalDir === "/" && SYSTEM_DIR_NAMES.some((name) => picomatch.isMatch(name, segment, { dot: true }));
}

function credentialIn(absolute: string, home: string): string | undefined {
	if (SYSTEM_CREDENTIALS.includes(absolute)) return absolute;
	for (const base of [home, "/root"]) {
		if (!absolute.startsWith(`${base}/`)) continue;
		const rel = absolute.slice(base.length + 1);
		const hit = HOME_CREDENTIALS.find((c) => rel === c || rel.startsWith(`${c}/`));
		if (hit) return absolute;
	}
	const other = /^\/(?:home|Users)\/[^/]+\/(.+)$/.exec(absolute);
	if (other && HOME_CREDENTIALS.some((c) => other[1] === c || other[1]!.startsWith(`${c}/`))) return absolute;
	return undefined;
}

/** Whether a glob could name `target` or something inside it (shell globbing: `*` skips dotfiles). */
function globReaches(glob: string, target: string): boolean {
	const globSegments = glob.split("/").filter((s) => s !== "");
	const targetSegments = target.split("/").filter((s) => s !== "");
	for (let i = 0; i < targetSegments.length; i++) {
		const segment = globSegments[i];
		if (segment === undefined) return false;
		if (segment === "**") return true;
		if (!picomatch.isMatch(targetSegments[i]!, segment, { dot: false })) return false;
	}
	return true;
}

function credentialPath(value: string, scope: HardlineScope): string | undefined {
	const home = resolve(scope.home, scope);
	const abs = resolve(value, scope);
	if (!hasGlob(abs)) return credentialIn(abs, home);
	const locations = [...SYSTEM_CREDENTIALS, ...[home, ...SAMPLE_HOMES].flatMap((h) => HOME_CREDENTIALS.map((c) => `${h}/${c}`))];
	return locations.some((location) => globReaches(abs, location)) ? abs : undefined;
}

function dotenvOutside(value: string, scope: HardlineScope): string | undefined {
	const canonical = canonicalPath(resolve(value, scope), scope.workspace, scope.home);
	if (canonical.inside) return undefined;
	const base = posix.basename(canonical.absolute);
	const isDotenv = hasGlob(base) ? picomatch.isMatch(".env", base, { dot: false }) : DOTENV.test(base);
	return isDotenv ? canonical.absolute : undefined;
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
		const argv = command.argv;
		const firstExpression = argv.findIndex((a) => a.startsWith("-") || a === "(" || a === "!");
		const starts = firstExpression === -1 ? argv : argv.slice(0, firstExpression);
		const deletes = argv.some(
			(a, i) => a === "-delete" || ((a === "-exec" || a === "-execdir") && /^(?:.*\/)?(?:rm|shred|unlink)$/.test(argv[i + 1] ?? "")),
		);
		const target = starts.find((s) => isProtectedTarget(s, scope));
		return deletes && target !== undefined ? `find ${target} deleting` : undefined;
	}
	return undefined;
}

function recursivePermissions(command: SimpleCommand, _parsed: ParsedShell, scope: HardlineScope): string | undefined {
	if (!["chmod", "chown", "chgrp"].includes(command.program) || !flagsOf(command).includes("-R")) return undefined;
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

function diskWipe(command: SimpleCommand): string | undefined {
	if (DISK_FORMATTERS.test(command.program)) return `${command.program} formats or wipes a disk`;
	const operands = operandsOf(command);
	if (command.program === "dd") {
		const target = operands.find((o) => o.startsWith("of=") && BLOCK_DEVICE.test(o.slice(3)));
		if (target) return `dd ${target}`;
	}
	if (command.program === "shred") {
		const target = operands.find((o) => o.startsWith("/dev/"));
		if (target) return `shred ${target}`;
	}
	const written = command.program === "tee" ? operands : ["cp", "mv", "install"].includes(command.program) ? operands.slice(-1) : [];
	const device = written.find((o) => BLOCK_DEVICE.test(o));
	if (device) return `${command.program} onto ${device}`;
	const redirect = command.redirects.find((r) => r.kind === "write" && BLOCK_DEVICE.test(r.target.value));
	return redirect ? `redirect > ${redirect.target.value}` : undefined;
}

function credentialMention(command: SimpleCommand, _parsed: ParsedShell, scope: HardlineScope): string | undefined {
	for (const p of mentionedPaths(command)) {
		const hit = credentialPath(p, scope);
		if (hit) return hit;
	}
	return undefined;
}

function dotenvMention(command: SimpleCommand, _parsed: ParsedShell, scope: HardlineScope): string | undefined {
	for (const p of mentionedPaths(command)) {
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
		name: "recursive-permissions-root",
		reason: "recursive chmod/chown/chgrp of /, the home directory or a top-level system directory",
		command: recursivePermissions,
	},
	{ name: "fork-bomb", reason: "a shell function that multiplies itself (fork bomb)", command: forkBomb },
	{
		name: "disk-wipe",
		reason: "formatting, wiping or writing a raw disk device",
		command: diskWipe,
		path: (path, scope) => (BLOCK_DEVICE.test(resolve(path, scope)) ? resolve(path, scope) : undefined),
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

/**
 * Directories a command may run in: the workspace, and every directory an earlier `cd` or `pushd`
 * in the same script moved to (the flat list does not say which branch ran, so all count).
 */
function possibleCwds(command: SimpleCommand, parsed: ParsedShell, scope: HardlineScope): string[] {
	const cwds = [scope.workspace];
	let current = scope.workspace;
	for (const earlier of parsed.commands) {
		if (earlier === command) break;
		if (earlier.program !== "cd" && earlier.program !== "pushd") continue;
		const target = earlier.normalized.operands[0];
		if (target && !target.static) continue;
		current = canonicalPath(target?.value ?? scope.home, current, scope.home).absolute;
		cwds.push(current);
	}
	return cwds;
}

export function hardlineForCommand(command: SimpleCommand, parsed: ParsedShell, scope: HardlineScope): HardlineHit | undefined {
	for (const cwd of possibleCwds(command, parsed, scope)) {
		for (const rule of HARDLINE_RULES) {
			const detail = rule.command?.(command, parsed, { ...scope, cwd });
			if (detail !== undefined) return { rule, detail };
		}
	}
	return undefined;
}

export function hardlineForPath(path: string, scope: HardlineScope): HardlineHit | undefined {
	for (const rule of HARDLINE_RULES) {
		const detail = rule.path?.(path, scope);
		if (detail !== undefined) return { rule, detail };
	}
	return undefined;
}
