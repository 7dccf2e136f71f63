/**
 * Flag normalization, so that `rm -rf`, `rm -fr`, `rm -r -f` and `rm --recursive --force` compare equal.
 * Combined short flags are split, long flags of well-known programs are mapped to their short form,
 * and the flags are sorted and deduplicated; operands keep their order.
 */
import type { NormalizedArgs, ShellWord } from "./shell-types.js";

interface FlagSpec {
	/** False for programs whose options are single-dash words (`find -name`), which are kept as written. */
	split?: boolean;
	/** Spelling → canonical spelling, e.g. `--recursive` → `-r`. */
	aliases?: Record<string, string>;
	/** Options that take a value (the next word, or the rest of the cluster). */
	valueOptions?: readonly string[];
}

const RECURSIVE_UPPER = { "-r": "-R", "--recursive": "-R" };
const AWK: FlagSpec = {
	valueOptions: ["-F", "-v", "-f", "-e", "-i", "-l", "-E", "-W", "--field-separator", "--assign", "--file", "--source", "--include", "--load", "--exec"],
};

const FLAG_SPECS: Record<string, FlagSpec> = {
	rm: {
		aliases: { "-R": "-r", "--recursive": "-r", "--force": "-f", "--dir": "-d", "--verbose": "-v", "--interactive": "-i" },
	},
	cp: {
		aliases: { ...RECURSIVE_UPPER, "--force": "-f", "--archive": "-a", "--verbose": "-v", "--no-clobber": "-n" },
		valueOptions: ["-t", "--target-directory", "-S", "--suffix"],
	},
	mv: {
		aliases: { "--force": "-f", "--verbose": "-v", "--no-clobber": "-n" },
		valueOptions: ["-t", "--target-directory", "-S", "--suffix"],
	},
	chmod: { aliases: { "--recursive": "-R" }, valueOptions: ["--reference"] },
	chown: { aliases: { "--recursive": "-R" }, valueOptions: ["--reference", "--from"] },
	chgrp: { aliases: { "--recursive": "-R" }, valueOptions: ["--reference"] },
	git: {
		aliases: {
			"--force": "-f",
			"--delete": "-d",
			"--all": "-a",
			"--verbose": "-v",
			"--quiet": "-q",
			"--directories": "-d",
			"--dry-run": "-n",
		},
		valueOptions: ["-C", "-c", "--git-dir", "--work-tree", "--namespace", "-m", "--message", "-b"],
	},
	head: { valueOptions: ["-n", "-c", "--lines", "--bytes"] },
	tail: { valueOptions: ["-n", "-c", "--lines", "--bytes", "--pid", "-s", "--sleep-interval"] },
	grep: {
		valueOptions: ["-e", "-f", "-m", "-A", "-B", "-C", "--regexp", "--file", "--max-count", "--include", "--exclude", "--exclude-dir"],
	},
	rg: {
		valueOptions: [
			"-e", "-f", "-g", "-t", "-T", "-m", "-A", "-B", "-C", "-j", "-r", "-M", "-E", "-d", "--glob", "--iglob", "--type",
			"--type-not", "--type-add", "--regexp", "--file", "--pre", "--pre-glob", "--hostname-bin", "--replace", "--max-count",
			"--context", "--after-context", "--before-context", "--threads", "--max-columns", "--encoding", "--max-depth",
			"--ignore-file", "--sort", "--sortr", "--colors", "--max-filesize", "--path-separator",
		],
	},
	sort: {
		valueOptions: ["-o", "--output", "-k", "--key", "-t", "--field-separator", "-S", "--buffer-size", "-T", "--temporary-directory", "--compress-program", "--batch-size", "--parallel", "--files0-from"],
	},
	tree: { valueOptions: ["-o", "-L", "-P", "-I", "-H", "-T", "--charset", "--filelimit", "--timefmt", "--sort"] },
	base64: { valueOptions: ["-w", "--wrap", "-o", "--output", "-i", "--input", "-b", "--break"] },
	sed: { valueOptions: ["-e", "--expression", "-f", "--file", "-l", "--line-length"] },
	awk: AWK,
	gawk: AWK,
	mawk: AWK,
	nawk: AWK,
	tar: {
		valueOptions: ["-f", "--file", "-C", "--directory", "-I", "--use-compress-program", "-T", "--files-from", "-X", "--exclude-from", "-F", "--info-script", "--new-volume-script", "--to-command", "--rsh-command", "--rmt-command", "-b", "-N"],
	},
	date: { valueOptions: ["-d", "--date", "-f", "--file", "-r", "--reference", "-s", "--set"] },
	printf: { valueOptions: ["-v"] },
	xxd: { valueOptions: ["-c", "-g", "-l", "-o", "-s", "-cols", "-len", "-seek"] },
	npm: { valueOptions: ["--prefix", "-w", "--workspace"] },
	find: { split: false },
	dd: { split: false },
	java: { split: false },
	go: { split: false },
	gcc: { split: false },
	clang: { split: false },
	ffmpeg: { split: false },
};

const isLetter = (c: string): boolean => {
	const code = c.charCodeAt(0) | 0x20;
	return c.length === 1 && code >= 0x61 && code <= 0x7a;
};

interface ResolvedFlagSpec {
	split: boolean;
	aliases: Readonly<Record<string, string>>;
	valueOptions: ReadonlySet<string>;
}

/** Every command is normalized twice on its way to a decision (args, then text): the table is resolved once. */
const RESOLVED_SPECS = new Map<string, ResolvedFlagSpec>(
	Object.entries(FLAG_SPECS).map(([program, spec]) => [program, { split: spec.split ?? true, aliases: spec.aliases ?? {}, valueOptions: new Set(spec.valueOptions ?? []) }]),
);
const NO_SPEC: ResolvedFlagSpec = { split: true, aliases: {}, valueOptions: new Set() };

export function flagSpecOf(program: string): ResolvedFlagSpec {
	// A Map, not the object: a program named `constructor` or `__proto__` has no flag spec.
	return RESOLVED_SPECS.get(program) ?? NO_SPEC;
}

/**
 * Normalize a program's arguments. Dynamic words are always operands (their expansion is unknown).
 * A value-taking option and its value become one flag, `-C dir`; `--` ends the options.
 */
export function normalizeArgs(program: string, args: readonly ShellWord[]): NormalizedArgs {
	const spec = flagSpecOf(program);
	if (!spec.split) return { flags: [], operands: [...args] };
	// Most commands have a few flags, for which an array kept free of repeats costs less than a Set;
	// past a handful a Set takes over, so a hostile line of many flags stays linear.
	const flags: string[] = [];
	let seen: Set<string> | undefined;
	const add = (flag: string): void => {
		if (seen === undefined) {
			if (flags.includes(flag)) return;
			flags.push(flag);
			if (flags.length >= 16) seen = new Set(flags);
		} else if (!seen.has(flag)) {
			seen.add(flag);
			flags.push(flag);
		}
	};
	const operands: ShellWord[] = [];
	const alias = (f: string): string => spec.aliases[f] ?? f;
	let optionsDone = false;
	for (let i = 0; i < args.length; i++) {
		const word = args[i]!;
		const v = word.value;
		if (optionsDone || !word.static || v === "-" || !v.startsWith("-")) {
			operands.push(word);
			continue;
		}
		if (v === "--") {
			optionsDone = true;
			continue;
		}
		if (v.startsWith("--")) {
			const eq = v.indexOf("=");
			const name = eq === -1 ? v : v.slice(0, eq);
			if (eq !== -1) add(`${alias(name)}=${v.slice(eq + 1)}`);
			else if (spec.valueOptions.has(name) && i + 1 < args.length) add(`${alias(name)} ${args[++i]!.value}`);
			else add(alias(name));
			continue;
		}
		if (!isLetter(v[1]!)) {
			add(v);
			continue;
		}
		for (let j = 1; j < v.length; j++) {
			const c = v[j]!;
			const short = `-${c}`;
			if (spec.valueOptions.has(short)) {
				const rest = v.slice(j + 1);
				if (rest) add(`${alias(short)} ${rest}`);
				else if (i + 1 < args.length) add(`${alias(short)} ${args[++i]!.value}`);
				else add(alias(short));
				break;
			}
			if (!isLetter(c)) {
				add(`-${v.slice(j)}`);
				break;
			}
			add(alias(short));
		}
	}
	return { flags: flags.sort(), operands };
}

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./~*?[\]{}^!-]+$/;

/** Quote a word for display only when it needs it. */
export function displayWord(value: string): string {
	if (value !== "" && SAFE_WORD.test(value)) return value;
	return `'${value.replace(/'/g, "'\\''")}'`;
}

/** The canonical text of a normalized command: `program flags -- operands`. */
export function normalizedText(program: string, normalized: NormalizedArgs): string {
	const flag = (f: string): string => {
		const space = f.indexOf(" ");
		return space === -1 ? f : `${f.slice(0, space)} ${displayWord(f.slice(space + 1))}`;
	};
	// The non-empty parts joined by spaces, built as it goes: this runs for every command parsed.
	let text = program;
	const push = (part: string): void => {
		if (part !== "") text = text === "" ? part : `${text} ${part}`;
	};
	for (const f of normalized.flags) push(flag(f));
	if (flagSpecOf(program).split && normalized.operands.some((o) => o.static && o.value.startsWith("-") && o.value !== "-")) push("--");
	for (const o of normalized.operands) push(o.static ? displayWord(o.value) : o.value);
	return text;
}
