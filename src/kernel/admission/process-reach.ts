/**
 * Programs that act on processes beyond the command: signalling ones it did not start (`kill
 * <pid>`, `pkill`), scheduling jobs that run later (`crontab`, `at`), controlling services and the
 * machine (`systemctl`, `launchctl`, `shutdown`); and package runners that fetch code from the
 * network and run it (`npx -y`, `uvx`, `pipx run`). One row per program, each tested in
 * process-reach.test.ts. Their listing and status forms are left alone: they only read.
 */
import type { Reach } from "./command-reach.js";
import type { ShellWord, SimpleCommand } from "./shell/shell-types.js";

type ProcessRule = (c: SimpleCommand) => Reach | undefined;

const text = (w: ShellWord): string => w.value;
/** The command as written (flags in their order), for reasons: `kill -9 -1`, not the sorted `kill -1 -9`. */
const written = (c: SimpleCommand): string => [c.programPath, ...c.argv].join(" ");
/** Operands: words that do not start with a dash. */
const operands = (c: SimpleCommand): ShellWord[] => c.args.filter((w) => !w.static || !w.value.startsWith("-"));
const hasFlag = (c: SimpleCommand, ...names: string[]): boolean => c.args.some((w) => w.static && names.includes(w.value));

/** `kill`'s process operands, past its signal spec (`-9`, `-KILL`, `-s KILL`); undefined for a listing (`kill -l`). */
function killTargets(args: readonly ShellWord[]): ShellWord[] | undefined {
	const pids: ShellWord[] = [];
	let signalGiven = false;
	let optionsDone = false;
	for (let i = 0; i < args.length; i++) {
		const w = args[i]!;
		const v = w.value;
		if (!optionsDone && w.static && v.startsWith("-") && v !== "-") {
			if (v === "--") optionsDone = true;
			else if (v === "-l" || v === "-L" || v === "--list" || v === "--table") return undefined;
			else if (v === "-s" || v === "-n" || v === "--signal") {
				i++;
				signalGiven = true;
			} else if (!signalGiven) signalGiven = true;
			else pids.push(w);
			continue;
		}
		pids.push(w);
	}
	return pids;
}

/** A pid the command itself started: its own jobs (`%1`), its last background child (`$!`), its own group (`0`). */
const OWN_PROCESS = /^(?:%.*|\$!|\$\{!\}|"\$!"|0)$/;

function kill(c: SimpleCommand): Reach | undefined {
	const pids = killTargets(c.args);
	if (!pids) return undefined;
	const foreign = pids.filter((p) => !OWN_PROCESS.test(p.value));
	if (foreign.length === 0) return undefined;
	const all = foreign.find((p) => p.static && p.value === "-1");
	if (all) return { kind: "signal", what: `signals every process the user may signal (${written(c)})`, why: "-1 names every process, not only ones this command started" };
	const shown = foreign.map(text).join(" ");
	const group = foreign.some((p) => p.static && p.value.startsWith("-"));
	return {
		kind: "signal",
		what: `signals ${group ? "process group" : "process"} ${shown} (${written(c)})`,
		why: "a process this command did not start",
	};
}

const byName = (c: SimpleCommand): Reach => ({ kind: "signal", what: `signals processes by name (${written(c)})`, why: "any of the user's processes of that name, not only ones this command started" });

const schedule = (c: SimpleCommand, why: string): Reach => ({ kind: "schedule", what: written(c), why });

/** Verbs of a service manager that only read. */
const SYSTEMCTL_READS = new Set(["status", "show", "cat", "list-units", "list-unit-files", "list-timers", "list-sockets", "list-jobs", "list-dependencies", "is-active", "is-enabled", "is-failed", "is-system-running", "help", "get-default"]);
const LAUNCHCTL_READS = new Set(["list", "print", "print-cache", "print-disabled", "blame", "help", "version", "dumpstate", "error", "managerpid", "manageruid", "managername"]);
const LOGINCTL_READS = new Set(["list-sessions", "session-status", "show-session", "list-users", "user-status", "show-user", "list-seats", "seat-status", "show-seat", "help"]);
const SERVICE_READS = new Set(["status", "--status-all"]);

/** A service manager whose verb is operand `verbAt` (`systemctl VERB`, `service NAME VERB`). */
function serviceManager(reads: ReadonlySet<string>, why: string, verbAt = 0): ProcessRule {
	return (c) => {
		const verb = operands(c)[verbAt];
		if (verb === undefined ? hasFlag(c, "--status-all", "-h", "--help", "--version") : verb.static && reads.has(verb.value)) return undefined;
		if (verb === undefined && c.program !== "service") return undefined;
		return schedule(c, why);
	};
}

export const PROCESS_REACH: Readonly<Record<string, ProcessRule>> = {
	kill,
	pkill: byName,
	killall: byName,
	skill: byName,
	xkill: (c) => ({ kind: "signal", what: `kills a window's client (${written(c)})`, why: "a program this command did not start" }),
	crontab: (c) =>
		hasFlag(c, "-l") && !hasFlag(c, "-r", "-e") ? undefined : schedule(c, "changes the user's crontab: cron runs its jobs later, outside the workspace and every sandbox"),
	at: (c) => (hasFlag(c, "-l", "-c") ? undefined : schedule(c, "schedules a job: atd runs it later, outside the workspace and every sandbox")),
	batch: (c) => schedule(c, "schedules a job: atd runs it later, outside the workspace and every sandbox"),
	atrm: (c) => schedule(c, "removes the user's scheduled jobs"),
	"systemd-run": (c) => schedule(c, "starts a transient service: systemd runs it outside the workspace and every sandbox"),
	systemctl: serviceManager(SYSTEMCTL_READS, "controls a service: systemd runs it outside the workspace and every sandbox"),
	service: serviceManager(SERVICE_READS, "controls a system service", 1),
	launchctl: serviceManager(LAUNCHCTL_READS, "controls a launchd job: launchd runs it outside the workspace and every sandbox"),
	loginctl: serviceManager(LOGINCTL_READS, "controls login sessions (lingering user services, other sessions)"),
	shutdown: (c) => schedule(c, "stops or restarts the machine"),
	reboot: (c) => schedule(c, "restarts the machine"),
	halt: (c) => schedule(c, "stops the machine"),
	poweroff: (c) => schedule(c, "stops the machine"),
	telinit: (c) => schedule(c, "changes the machine's run level"),
};

// Package runners -------------------------------------------------------------------------------

/** Options that keep npx/npm exec to packages already installed. */
const NPX_LOCAL_ONLY = new Set(["--no", "--no-install", "--offline"]);

/** `npx -y cowsay`, `npx pkg@1`, `npx -p pkg cmd`: code from the registry, run now. */
function npxFetches(args: readonly ShellWord[]): string | undefined {
	// Only npx's own options count: those after the command name are the command's (`npx tsc -p x`).
	const options: string[] = [];
	let packageOption: string | undefined;
	let command: ShellWord | undefined;
	for (let i = 0; i < args.length; i++) {
		const w = args[i]!;
		if (!w.static || !w.value.startsWith("-")) {
			command = w;
			break;
		}
		if (w.value === "--") {
			command = args[i + 1];
			break;
		}
		options.push(w.value);
		if (w.value === "-p" || w.value === "--package") packageOption = args[++i]?.value;
		else if (w.value.startsWith("--package=")) packageOption = w.value.slice("--package=".length);
	}
	if (options.some((o) => NPX_LOCAL_ONLY.has(o))) return undefined;
	const yes = options.includes("-y") || options.includes("--yes");
	// A versioned, scoped or git/URL spec names a package to fetch; a bare name may be a local bin.
	const spec = command !== undefined && (!command.static || /.@|^@|[:/]/.test(command.value));
	if (packageOption !== undefined) return packageOption;
	if (!yes && !spec) return undefined;
	return command?.value ?? "a package";
}

const fetched = (c: SimpleCommand, pkg: string): Reach => ({
	kind: "fetch-and-run",
	what: `runs ${pkg} (${written(c)})`,
	why: "fetches its code from the network and runs it",
});

/** `npm exec`/`npm x`, `pnpm dlx`, `yarn dlx`, `bun x`: a sub-command that fetches and runs. */
function subRunner(verbs: readonly string[], always: boolean) {
	return (c: SimpleCommand): Reach | undefined => {
		const at = c.args.findIndex((w) => w.static && verbs.includes(w.value));
		if (at === -1 || operands(c)[0] !== c.args[at]) return undefined;
		const rest = c.args.slice(at + 1);
		const pkg = always ? rest.find((w) => !w.static || !w.value.startsWith("-"))?.value : npxFetches(rest);
		return pkg === undefined ? undefined : fetched(c, pkg);
	};
}

const FETCH_AND_RUN: Readonly<Record<string, (c: SimpleCommand) => Reach | undefined>> = {
	npx: (c) => {
		const pkg = npxFetches(c.args);
		return pkg === undefined ? undefined : fetched(c, pkg);
	},
	npm: subRunner(["exec", "x"], false),
	pnpm: subRunner(["dlx"], true),
	pnpx: (c) => fetched(c, operands(c)[0]?.value ?? "a package"),
	yarn: subRunner(["dlx"], true),
	bunx: (c) => fetched(c, operands(c)[0]?.value ?? "a package"),
	bun: subRunner(["x"], true),
	uvx: (c) => fetched(c, operands(c)[0]?.value ?? "a package"),
	uv: (c) => {
		const [sub, verb, pkg] = operands(c);
		return sub?.value === "tool" && verb?.value === "run" ? fetched(c, pkg?.value ?? "a package") : undefined;
	},
	pipx: (c) => {
		const [sub, pkg] = operands(c);
		return sub?.value === "run" ? fetched(c, pkg?.value ?? "a package") : undefined;
	},
	deno: (c) => {
		const [sub, target] = operands(c);
		if (sub?.value !== "run" && sub?.value !== "x") return undefined;
		return target && (!target.static || /^(?:https?:|npm:|jsr:)/.test(target.value)) ? fetched(c, target.value) : undefined;
	},
	go: (c) => {
		const [sub, target] = operands(c);
		return sub?.value === "run" && target?.static && /@/.test(target.value) ? fetched(c, target.value) : undefined;
	},
};

/** The package runner row a command meets, if it fetches and runs code. */
export function fetchAndRun(c: SimpleCommand): Reach | undefined {
	if (!c.programKnown || c.opaque || !Object.hasOwn(FETCH_AND_RUN, c.program)) return undefined;
	return FETCH_AND_RUN[c.program]!(c);
}

/** The programs that fetch and run: the egress analysis counts them as network clients. */
export const FETCH_AND_RUN_PROGRAMS: readonly string[] = Object.keys(FETCH_AND_RUN);
