/**
 * What one shell sub-command visibly tries beyond the workspace, read from its text before it runs:
 * files it writes outside the workspace or on a protected path (and those that something runs
 * later), code it fetches from the network and runs, processes it signals that it did not start,
 * jobs and services it schedules. Each fact says what, and why it matters, in words a model
 * understands; reach-policy.ts decides them per mode.
 */
import { shellEgress } from "../flow/shell-egress.js";
import type { ProtectedPaths } from "../protected/protected-paths.js";
import { SANDBOX_PROTECTED_ROOTS } from "../protected/protected-paths.js";
import { type PathScope, possibleCwds } from "./command-paths.js";
import { gitExecKey } from "./git-exec-config.js";
import { persistencePath } from "./persistence-paths.js";
import { PROCESS_REACH, fetchAndRun } from "./process-reach.js";
import type { ParsedShell, SimpleCommand } from "./shell/shell-types.js";
import { type WriteTarget, writeTargets } from "./shell/write-targets.js";
import { targetPlaces, tmpScratch } from "./target-paths.js";
import { canonicalPath } from "./workspace-path.js";
import picomatch from "picomatch";

export type ReachKind =
	/** Writes a path of the protected-paths registry. */
	| "protected-write"
	/** Writes outside the workspace, somewhere nothing runs on its own. */
	| "outside-write"
	/** Writes outside the workspace where something runs it later (a shell rc file, a user unit). */
	| "persistence"
	/** Writes a file only known at run time: it could be outside, or protected. */
	| "unknown-write"
	/** Fetches code from the network and runs it. */
	| "fetch-and-run"
	/** Signals processes it did not start. */
	| "signal"
	/** Schedules a job or controls a service that runs beyond the command. */
	| "schedule";

export interface Reach {
	kind: ReachKind;
	/** What the command does: `writes ~/.bashrc`, `signals every process (kill -9 -1)`. */
	what: string;
	/** Why that matters: `outside the workspace`, the registry's reason … */
	why: string;
}

export interface ReachScope extends PathScope {
	protectedPaths: ProtectedPaths;
	/** The command runs in a sandbox with a private /tmp: what it writes there is scratch that vanishes. */
	privateTmp?: boolean;
}

const VERB: Record<WriteTarget["kind"], string> = { write: "writes", append: "appends to", delete: "deletes", "create-dir": "creates" };
const GLOB = /[*?[]/;

/** Writes that are persistence whatever file they land in: what the install puts on the user's PATH or in a global config. */
const PERSISTENT_VIAS: Record<string, string> = {
	"npm config set -g": "npm's global config: it can name the shell and node options every install runs with",
	"npm install -g": "installs programs on the user's PATH, outside the workspace",
	"npm i -g": "installs programs on the user's PATH, outside the workspace",
	"npm add -g": "installs programs on the user's PATH, outside the workspace",
	"npm link -g": "installs programs on the user's PATH, outside the workspace",
	"pip install --user": "installs packages and programs under ~/.local, on the user's PATH",
};

/** The key a `git config` write sets, when the command shows one. */
function gitConfigKey(c: SimpleCommand): string | undefined {
	const at = c.args.findIndex((w) => w.static && w.value === "config");
	for (const w of c.args.slice(at + 1)) {
		if (w.static && !w.value.startsWith("-") && w.value.includes(".")) return w.value;
	}
	return undefined;
}

/** A glob target that could name a protected root (`rm -rf .g*`, `cp x .git/hook?`). */
function globHitsProtected(glob: string, scope: ReachScope): string | undefined {
	const test = picomatch(glob.replace(/^\.\//, ""), { dot: true });
	for (const root of [...SANDBOX_PROTECTED_ROOTS, ...scope.protectedPaths.extraLiteralRoots()]) {
		const parts = root.split("/");
		for (let i = 1; i <= parts.length; i++) {
			if (test(parts.slice(0, i).join("/"))) return root;
		}
	}
	return undefined;
}

function writeReach(c: SimpleCommand, t: WriteTarget, cwds: readonly string[], scope: ReachScope): Reach[] {
	const shown = t.path.value;
	const what = `${VERB[t.kind]} ${shown}`;
	const persistent = PERSISTENT_VIAS[t.via];
	if (!t.path.static) {
		if (persistent !== undefined) return [{ kind: "persistence", what, why: persistent }];
		return [{ kind: "unknown-write", what, why: `${shown} is only known at run time: it could be outside the workspace or a protected path` }];
	}
	const out: Reach[] = [];
	for (const place of targetPlaces(t.path, cwds, scope)) {
		for (const rel of new Set([place.relative, place.writtenRelative])) {
			const hit = rel === undefined ? undefined : scope.protectedPaths.match(rel);
			if (hit) out.push({ kind: "protected-write", what, why: hit.rule.reason });
		}
		if (GLOB.test(shown) && place.inside) {
			const root = globHitsProtected(canonicalPath(place.absolute, scope.workspace, scope.home).relative ?? shown, scope);
			const hit = root === undefined ? undefined : scope.protectedPaths.match(root);
			if (hit) out.push({ kind: "protected-write", what, why: `it may match ${root}: ${hit.rule.reason}` });
		}
		if (place.inside) continue;
		if (scope.privateTmp && tmpScratch(place.absolute, scope.resolvePath)) continue;
		const really = place.real !== place.absolute ? `: it is really ${place.real}` : "";
		const row = persistencePath(place.real, scope.home) ?? persistencePath(place.absolute, scope.home);
		const gitSetting = t.via.startsWith("git config") ? gitConfigKey(c) : undefined;
		// git's own config commands say which key they set: an ordinary setting is an ordinary write.
		const ordinaryGitSetting = t.via.startsWith("git config") && (gitSetting === undefined ? false : gitExecKey(gitSetting) === undefined);
		if (persistent !== undefined) out.push({ kind: "persistence", what, why: persistent });
		else if (row !== undefined && !ordinaryGitSetting) {
			const key = gitSetting !== undefined ? `; ${gitSetting} names a program git runs` : "";
			out.push({ kind: "persistence", what, why: `${row.reason}${key}${really}` });
		} else out.push({ kind: "outside-write", what, why: `outside the workspace${really}` });
	}
	return out;
}

/** Interpreters and shells whose first operand is a script file they run. */
const SCRIPT_RUNNERS = /^(?:sh|bash|dash|zsh|ksh|ash|source|\.|python[0-9.]*|node|nodejs|perl|ruby|php|deno|bun)$/;

/** The file a command runs as code, when it names one: `./x`, `sh x`, `python3 x.py`. */
function runsFile(c: SimpleCommand): string | undefined {
	if (c.programPath.includes("/")) return c.programPath;
	if (!SCRIPT_RUNNERS.test(c.program)) return undefined;
	const script = c.args.find((w) => !w.static || !w.value.startsWith("-"));
	return script?.static ? script.value : undefined;
}

/** `curl -o x URL && sh x`: a file an earlier network command of the same script wrote, run as code. */
function runsFetched(c: SimpleCommand, parsed: ParsedShell, scope: ReachScope): Reach | undefined {
	const file = runsFile(c);
	if (file === undefined) return undefined;
	const runs = canonicalPath(file, scope.workspace, scope.home).absolute;
	for (const earlier of parsed.commands) {
		if (earlier === c) break;
		const wrote = writeTargets(earlier).filter((t) => t.path.static && canonicalPath(t.path.value, scope.workspace, scope.home).absolute === runs);
		if (wrote.length === 0) continue;
		if (!shellEgress({ source: earlier.text, commands: [earlier], functions: [], malformed: false }).network) continue;
		return { kind: "fetch-and-run", what: `runs ${file}`, why: `${earlier.program} fetched it from the network earlier in the command` };
	}
	return undefined;
}

/** Every fact about one sub-command, deduplicated; empty for a command that stays in the workspace. */
export function commandReach(c: SimpleCommand, parsed: ParsedShell, scope: ReachScope): Reach[] {
	const cwds = possibleCwds(c, parsed, scope);
	const out: Reach[] = writeTargets(c).flatMap((t) => writeReach(c, t, cwds, scope));
	const fetched = fetchAndRun(c) ?? runsFetched(c, parsed, scope);
	if (fetched) out.push(fetched);
	if (c.programKnown && !c.opaque && Object.hasOwn(PROCESS_REACH, c.program)) {
		const found = PROCESS_REACH[c.program]!(c);
		if (found) out.push(found);
	}
	if (out.length < 2) return out;
	const seen = new Set<string>();
	return out.filter((r) => {
		const key = `${r.kind}\0${r.what}\0${r.why}`;
		if (seen.has(key)) return false;
		seen.add(key);
		return true;
	});
}
