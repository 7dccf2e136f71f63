/**
 * Looking through wrappers: `env`, `nice`, `timeout`, `sudo`, `xargs`, `bash -c '…'` and friends run
 * another program, and that program is what policy must see. A wrapper whose program cannot be
 * determined makes the command opaque.
 */
import { reasonText } from "./reason-text.js";
import type { ShellRedirect, ShellWord } from "./shell-types.js";

/** A command on its way to becoming a SimpleCommand, while wrappers are peeled off. */
export interface CommandFrame {
	words: ShellWord[];
	env: { name: string; value: string }[];
	redirects: ShellRedirect[];
	wrappers: string[];
	/** Program words of the wrappers looked through, as written. */
	launchers?: string[];
	/** A wrapper moved the program to another directory (`env -C`): the option, as written. */
	chdir?: string;
	privileged: boolean;
	argsFromInput: boolean;
	opaqueReason?: string;
	/** Source text of the outermost command this frame came from. */
	source: string;
	inPipeline: boolean;
	background: boolean;
	inFunction?: string;
}

/**
 * A copy of a frame with every field written out, absent ones undefined: frames are copied at each
 * wrapper peeled off, and one shape for all of them keeps that (and every later read) cheap where
 * a spread of frames of many shapes is not. Readers test fields for undefined, never for presence.
 */
export function copyFrame(f: CommandFrame): CommandFrame {
	return {
		words: f.words,
		env: f.env,
		redirects: f.redirects,
		wrappers: f.wrappers,
		launchers: f.launchers,
		chdir: f.chdir,
		privileged: f.privileged,
		argsFromInput: f.argsFromInput,
		opaqueReason: f.opaqueReason,
		source: f.source,
		inPipeline: f.inPipeline,
		background: f.background,
		inFunction: f.inFunction,
	};
}

/** Parses an inline script (`sh -c`, `eval`, `watch`) into frames that inherit `outer`'s context. */
export type ScriptExpander = (script: string, outer: CommandFrame, wrapper: string) => CommandFrame[];

interface WrapperSpec {
	valueOptions?: readonly string[];
	/** Options whose value, if any, is attached (`xargs -i{}`). */
	attachedValueOptions?: readonly string[];
	/** Known value-less options; only consulted when `strict`. */
	flags?: readonly string[];
	/** An option we do not know makes the program undeterminable. */
	strict?: boolean;
	/** Operands before the program (`timeout DURATION`, `flock FILE`). */
	positionals?: number;
	/** `NAME=value` words before the program set its environment. */
	assignments?: boolean;
	/** Options that mean no program is run (`command -v`, `sudo -l`). */
	stopOptions?: readonly string[];
	/** Options whose value is a shell script (`su -c`, `flock -c`, `env -S`). */
	scriptOptions?: readonly string[];
	/** Options that start a shell when no program follows (`sudo -s`). */
	interactiveOptions?: readonly string[];
	/** Without a script option the wrapper starts an interactive shell (`su`). */
	needsScript?: boolean;
	/** The remaining words are joined into a script (`watch`). */
	joinArgs?: boolean;
	/** Options whose value is a file the wrapper writes (`time -o`). */
	writeOptions?: readonly string[];
	privileged?: boolean;
	argsFromInput?: boolean;
	/** The program run when none is given (`xargs` runs `echo`). */
	defaultProgram?: string;
	/** A lone `-` is an option (`env -`). */
	dashIsOption?: boolean;
	/** Options that run the program in another directory (`env -C dir`): the paths it names are then not the ones checked. */
	chdirOptions?: readonly string[];
}

const WRAPPERS: Record<string, WrapperSpec> = {
	env: {
		valueOptions: ["-u", "--unset", "-C", "--chdir"],
		scriptOptions: ["-S", "--split-string"],
		chdirOptions: ["-C", "--chdir"],
		assignments: true,
		dashIsOption: true,
	},
	nice: { valueOptions: ["-n", "--adjustment"] },
	timeout: { valueOptions: ["-s", "--signal", "-k", "--kill-after"], positionals: 1 },
	command: { stopOptions: ["-v", "-V"] },
	builtin: {},
	busybox: {},
	coproc: {},
	exec: { valueOptions: ["-a"] },
	nohup: {},
	setsid: {},
	unbuffer: {},
	chronic: {},
	stdbuf: { valueOptions: ["-i", "-o", "-e", "--input", "--output", "--error"] },
	time: { valueOptions: ["-f", "--format", "-o", "--output"], writeOptions: ["-o", "--output"] },
	ionice: { valueOptions: ["-c", "-n", "--class", "--classdata"] },
	chrt: { valueOptions: ["-T", "--sched-runtime", "-P", "--sched-period", "-D", "--sched-deadline"], stopOptions: ["-p", "--pid", "-m", "--max"], positionals: 1 },
	nocache: {},
	eatmydata: {},
	taskset: { positionals: 1 },
	caffeinate: { valueOptions: ["-t", "-w"] },
	flock: { valueOptions: ["-w", "--timeout", "-E", "--conflict-exit-code"], scriptOptions: ["-c", "--command"], positionals: 1 },
	watch: { valueOptions: ["-n", "--interval", "-d"], joinArgs: true },
	sudo: {
		valueOptions: ["-u", "-g", "-C", "-h", "-p", "-D", "-r", "-t", "-T", "-U", "--user", "--group", "--close-from", "--host", "--prompt", "--chdir", "--role", "--type", "--command-timeout", "--other-user"],
		stopOptions: ["-e", "-l", "-v", "-k", "-K", "-V", "--edit", "--list", "--validate", "--version"],
		interactiveOptions: ["-i", "-s", "--login", "--shell"],
		assignments: true,
		privileged: true,
	},
	doas: { valueOptions: ["-u", "-C"], stopOptions: ["-L"], interactiveOptions: ["-s"], privileged: true },
	su: { valueOptions: ["-s", "--shell", "-g", "--group", "-G", "-w"], scriptOptions: ["-c", "--command"], needsScript: true, privileged: true },
	script: { valueOptions: ["-E", "-o", "-T", "-I", "-O", "-B"], scriptOptions: ["-c", "--command"], needsScript: true },
	xargs: {
		valueOptions: ["-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter", "--eof", "--replace", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"],
		attachedValueOptions: ["-e", "-i", "-l"],
		flags: ["-0", "-r", "-t", "-p", "-x", "--null", "--no-run-if-empty", "--verbose", "--interactive", "--exit", "--open-tty"],
		strict: true,
		argsFromInput: true,
		defaultProgram: "echo",
	},
};

/** Shells whose syntax is not bash's: their scripts are read with the bash grammar only as a best effort. */
const FOREIGN_SHELLS = new Set(["fish", "csh", "tcsh"]);
const SHELLS = new Set(["sh", "bash", "rbash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "posh", "busybox-sh", ...FOREIGN_SHELLS]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
/** A program that runs shell code given to it as words (`eval "rm -rf x"`). */
const EVALUATORS = new Set(["eval"]);
/** A program that runs shell code from a file. */
const SOURCERS = new Set(["source", "."]);
const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

export function basename(path: string): string {
	const trimmed = path.charCodeAt(path.length - 1) === 0x2f ? path.replace(/\/+$/, "") : path;
	if (trimmed === "") return path;
	return trimmed.slice(trimmed.lastIndexOf("/") + 1);
}

interface ScanResult {
	/** Index in the words after the wrapper name where the program starts. */
	next: number;
	env: { name: string; value: string }[];
	script?: ShellWord;
	/** The option that carried the script, e.g. `-c`. */
	scriptOption?: string;
	writes: ShellWord[];
	stop: boolean;
	interactive: boolean;
	unknownOption?: string;
	/** The option that moved the program to another directory. */
	chdir?: string;
}

/** A wrapper's option lists as sets, built once per row: a row is read for every command it wraps. */
interface SpecSets {
	values: ReadonlySet<string>;
	attached: ReadonlySet<string>;
	flags: ReadonlySet<string>;
	stops: ReadonlySet<string>;
	scripts: ReadonlySet<string>;
	interactive: ReadonlySet<string>;
	writes: ReadonlySet<string>;
	chdirs: ReadonlySet<string>;
}

const WRAPPER_SPECS = new Map<string, WrapperSpec>(Object.entries(WRAPPERS));

const SPEC_SETS = new Map<WrapperSpec, SpecSets>(
	Object.values(WRAPPERS).map((spec) => [
		spec,
		{
			values: new Set(spec.valueOptions ?? []),
			attached: new Set(spec.attachedValueOptions ?? []),
			flags: new Set(spec.flags ?? []),
			stops: new Set(spec.stopOptions ?? []),
			scripts: new Set(spec.scriptOptions ?? []),
			interactive: new Set(spec.interactiveOptions ?? []),
			writes: new Set(spec.writeOptions ?? []),
			chdirs: new Set(spec.chdirOptions ?? []),
		},
	]),
);

function scanWrapper(spec: WrapperSpec, rest: readonly ShellWord[]): ScanResult {
	const result: ScanResult = { next: rest.length, env: [], writes: [], stop: false, interactive: false };
	const { values, attached, flags, stops, scripts, interactive, writes, chdirs } = SPEC_SETS.get(spec)!;
	let positionals = spec.positionals ?? 0;
	let optionsDone = false;
	const takeValue = (option: string, value: ShellWord | undefined): void => {
		if (chdirs.has(option)) result.chdir = option;
		if (!value) return;
		if (scripts.has(option)) {
			result.script = value;
			result.scriptOption = option;
		}
		if (writes.has(option)) result.writes.push(value);
	};
	let i = 0;
	while (i < rest.length) {
		const word = rest[i]!;
		const v = word.value;
		const isOption = word.static && !optionsDone && v.startsWith("-") && (v !== "-" || spec.dashIsOption === true);
		if (isOption) {
			if (v === "--") {
				optionsDone = true;
				i++;
				continue;
			}
			if (v.startsWith("--")) {
				const eq = v.indexOf("=");
				const name = eq === -1 ? v : v.slice(0, eq);
				if (stops.has(name)) result.stop = true;
				if (interactive.has(name)) result.interactive = true;
				if (values.has(name) || scripts.has(name)) {
					takeValue(name, eq === -1 ? rest[++i] : { value: v.slice(eq + 1), static: true });
				} else if (spec.strict && !flags.has(name)) {
					result.unknownOption = name;
				}
				i++;
				continue;
			}
			for (let j = 1; j < v.length; j++) {
				const option = `-${v[j]}`;
				if (values.has(option) || scripts.has(option)) {
					const tail = v.slice(j + 1);
					takeValue(option, tail ? { value: tail, static: true } : rest[++i]);
					break;
				}
				if (attached.has(option)) break;
				if (stops.has(option)) result.stop = true;
				if (interactive.has(option)) result.interactive = true;
				else if (spec.strict && !flags.has(option)) result.unknownOption = option;
			}
			i++;
			continue;
		}
		if (spec.assignments && word.static && ASSIGNMENT.test(v)) {
			const eq = v.indexOf("=");
			result.env.push({ name: v.slice(0, eq), value: v.slice(eq + 1) });
			i++;
			continue;
		}
		if (positionals > 0) {
			positionals--;
			optionsDone = false;
			i++;
			continue;
		}
		break;
	}
	result.next = i;
	return result;
}

function opaque(frame: CommandFrame, reason: string): CommandFrame {
	const shown = copyFrame(frame);
	shown.opaqueReason = frame.opaqueReason ?? reasonText(reason);
	return shown;
}

/** The text a shell would run for a script word: a dynamic word keeps its expansions as written. */
function scriptOf(word: ShellWord): string {
	return word.static ? word.value : (word.scriptText ?? word.value);
}

/**
 * Shell code only partly known before it runs (`bash -c "rm -rf $DIR"`, `eval "$X"`): the call itself
 * stays opaque, and the commands that can be read from the code are listed too, so a hardline or
 * deny rule that matches one of them still decides. The outer shell substitutes the expansions
 * first; reading them as the inner shell's expansions gives the same paths for `$HOME` and `~`.
 */
function partlyKnown(shown: CommandFrame, script: string, outer: CommandFrame, wrapper: string, expand: ScriptExpander): CommandFrame[] {
	return [shown, ...expand(script, outer, wrapper)];
}

/** `bash [options] -c 'script'`, `bash script.sh`, or a shell reading stdin. */
function lookThroughShell(frame: CommandFrame, name: string, expand: ScriptExpander): CommandFrame[] {
	const rest = frame.words.slice(1);
	let commandMode = false;
	let fromStdin = false;
	let i = 0;
	while (i < rest.length) {
		const word = rest[i]!;
		const v = word.value;
		if (!word.static) break;
		if (v === "--" || v === "-") {
			i++;
			break;
		}
		if (/^[-+][oO]$/.test(v) || v === "--rcfile" || v === "--init-file") {
			i += 2;
			continue;
		}
		if (v.startsWith("--")) {
			i++;
			continue;
		}
		if (/^[-+][A-Za-z]+$/.test(v)) {
			if (v.startsWith("-") && v.includes("c")) commandMode = true;
			if (v.startsWith("-") && v.includes("s")) fromStdin = true;
			i++;
			continue;
		}
		break;
	}
	if (commandMode) {
		const script = rest[i];
		if (!script) return [opaque(frame, `${name} -c has no script`)];
		const wrapper = `${name} -c`;
		if (FOREIGN_SHELLS.has(name)) {
			return partlyKnown(opaque(frame, `${name} is not a POSIX shell, so its script can only be read as a best effort`), scriptOf(script), frame, wrapper, expand);
		}
		if (!script.static) return partlyKnown(opaque(frame, `${name} -c runs a script with parts computed at run time`), scriptOf(script), frame, wrapper, expand);
		return expand(script.value, frame, wrapper);
	}
	if (fromStdin || i >= rest.length) return stdinScript(frame, name, expand);
	// `bash script.sh`, `sh ./x`, `bash <(curl …)`: the code is in a file (or a pipe) the parser never sees.
	const file = rest[i]!;
	const why = file.static ? `${name} runs the commands in the file ${file.value}` : `${name} runs a script produced at run time (${file.value})`;
	return [opaque(frame, why)];
}

/**
 * A shell reading its commands from standard input: a heredoc or here-string is a script like
 * `sh -c`'s, and each of its commands is decided; a file (`sh < x.sh`) or a pipe is not seen.
 */
function stdinScript(frame: CommandFrame, name: string, expand: ScriptExpander): CommandFrame[] {
	const stdin = frame.redirects.findLast((r) => r.kind === "heredoc" || (r.kind === "read" && (r.fd === undefined || r.fd === "0")));
	if (stdin?.kind === "read") {
		const file = stdin.target;
		return [opaque(frame, file.static ? `${name} runs the commands in the file ${file.value}` : `${name} runs a script produced at run time (${file.value})`)];
	}
	if (!stdin?.body || frame.inPipeline) return [opaque(frame, `${name} runs commands read from its input`)];
	// The script's commands do not read the heredoc that fed it to the shell.
	const outer: CommandFrame = { ...frame, redirects: frame.redirects.filter((r) => r !== stdin) };
	const wrapper = `${name} ${stdin.operator}`;
	if (FOREIGN_SHELLS.has(name)) {
		return partlyKnown(opaque(frame, `${name} is not a POSIX shell, so its script can only be read as a best effort`), scriptOf(stdin.body), outer, wrapper, expand);
	}
	if (!stdin.body.static) return partlyKnown(opaque(frame, `${name} runs a script with parts computed at run time`), scriptOf(stdin.body), outer, wrapper, expand);
	return expand(stdin.body.value, outer, wrapper);
}

/** `find … -exec cmd {} ;` runs cmd once per match: each -exec clause is a command of its own. */
function findExecFrames(frame: CommandFrame, expand: ScriptExpander): CommandFrame[] {
	const out: CommandFrame[] = [];
	const words = frame.words;
	for (let i = 1; i < words.length; i++) {
		if (!FIND_EXEC.has(words[i]!.value)) continue;
		const start = i + 1;
		let end = start;
		while (end < words.length && words[end]!.value !== ";" && words[end]!.value !== "+") end++;
		const inner: CommandFrame = {
			...frame,
			words: words.slice(start, end),
			wrappers: [...frame.wrappers, `find ${words[i]!.value}`],
			launchers: [...(frame.launchers ?? []), words[0]!.value],
			argsFromInput: true,
			opaqueReason: undefined,
		};
		if (inner.words.length > 0) out.push(...resolveFrame(inner, expand));
		i = end;
	}
	return out;
}

/** Peel wrappers off a frame until the program that actually runs is at its head. */
export function resolveFrame(start: CommandFrame, expand: ScriptExpander): CommandFrame[] {
	let frame = start;
	for (;;) {
		const first = frame.words[0];
		if (!first || frame.opaqueReason) return [frame];
		if (!first.static) return [opaque(frame, "the program name is computed at run time")];
		const name = basename(first.value);
		if (SHELLS.has(name)) return lookThroughShell(frame, name, expand);
		if (EVALUATORS.has(name)) {
			const rest = frame.words.slice(1);
			const shown = opaque(frame, `${name} runs text as shell code`);
			if (rest.length === 0) return [shown];
			return partlyKnown(shown, rest.map(scriptOf).join(" "), frame, name, expand);
		}
		if (SOURCERS.has(name)) return [opaque(frame, `${name} runs the commands in a file`)];
		if (name === "find") return [frame, ...findExecFrames(frame, expand)];
		// A Map of the rows: a program named `constructor` or `__proto__` is no wrapper.
		const spec = WRAPPER_SPECS.get(name);
		if (!spec) return [frame];
		const rest = frame.words.slice(1);
		const scan = scanWrapper(spec, rest);
		if (scan.stop) {
			const stopped = copyFrame(frame);
			stopped.privileged = frame.privileged || spec.privileged === true;
			return [stopped];
		}
		const wrapped = copyFrame(frame);
		wrapped.env = [...frame.env, ...scan.env];
		wrapped.redirects = [...frame.redirects, ...scan.writes.map((target) => ({ operator: ">", kind: "write" as const, target }))];
		wrapped.wrappers = [...frame.wrappers, name];
		wrapped.launchers = [...(frame.launchers ?? []), first.value];
		wrapped.privileged = frame.privileged || spec.privileged === true;
		wrapped.argsFromInput = frame.argsFromInput || spec.argsFromInput === true;
		if (scan.chdir) wrapped.chdir = `${name} ${scan.chdir}`;
		if (scan.unknownOption) return [opaque(frame, `${name} option ${scan.unknownOption} hides which program runs`)];
		const scriptOuter = copyFrame(wrapped);
		scriptOuter.wrappers = frame.wrappers;
		const computed = `${name} runs a script with parts computed at run time`;
		if (scan.script) {
			const wrapper = `${name} ${scan.scriptOption}`;
			if (!scan.script.static) return partlyKnown(opaque(wrapped, computed), scriptOf(scan.script), scriptOuter, wrapper, expand);
			return expand(scan.script.value, scriptOuter, wrapper);
		}
		const program = rest.slice(scan.next);
		if (spec.joinArgs && program.length > 0) {
			const script = program.map(scriptOf).join(" ");
			if (!program.every((w) => w.static)) return partlyKnown(opaque(wrapped, computed), script, scriptOuter, name, expand);
			return expand(script, scriptOuter, name);
		}
		if (program.length === 0) {
			if (spec.needsScript || scan.interactive) return [opaque(wrapped, `${name} starts an interactive shell`)];
			if (spec.defaultProgram) {
				wrapped.words = [{ value: spec.defaultProgram, static: true }];
				return [wrapped];
			}
			return [frame];
		}
		wrapped.words = program;
		frame = wrapped;
	}
}
