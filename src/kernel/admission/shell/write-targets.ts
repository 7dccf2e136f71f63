/**
 * The files a simple command visibly writes: its own output redirections, and the operands and
 * option values that the program itself writes, creates or deletes (`tee f`, `cp a dest`,
 * `dd of=f`, `sed -i f`). Read from the parse alone, before anything runs; which program writes
 * what is data in write-target-table.ts. Flags and sub-command names are never file names.
 */
import type { ShellWord, SimpleCommand } from "./shell-types.js";
import { type ScannedWords, scanWords, WRITE_TARGET_TABLE } from "./write-target-table.js";

export interface WriteTarget {
	path: ShellWord;
	kind: "write" | "append" | "delete" | "create-dir";
	/** How the command writes it: `">"`, `"2>>"`, `"tee"`, `"cp destination"`, `"dd of="`, `"sed -i"` … */
	via: string;
}

/** Redirect targets that are no file on disk. */
const SINKS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/full", "/dev/stdin", "-"]);
const FD_PATH = /^\/dev\/fd\/\d+$|^\/proc\/self\/fd\/\d+$/;
/** `>(cmd)`: a pipe to a command that is decided on its own. */
const PROCESS_SUBSTITUTION = /^[<>]\(/;

/** A word that names no file a command could write: a sink, a descriptor, a process substitution. */
export function isNotAFile(word: ShellWord): boolean {
	if (word.static) return SINKS.has(word.value) || FD_PATH.test(word.value);
	return PROCESS_SUBSTITUTION.test(word.value);
}

function redirectTargets(command: SimpleCommand): WriteTarget[] {
	const out: WriteTarget[] = [];
	for (const r of command.redirects) {
		if (r.kind !== "write") continue;
		const append = r.operator.startsWith(">>") || r.operator === "&>>";
		out.push({ path: r.target, kind: append ? "append" : "write", via: `${r.fd ?? ""}${r.operator}` });
	}
	return out;
}

function programTargets(command: SimpleCommand): WriteTarget[] {
	if (command.opaque || !command.programKnown || !Object.hasOwn(WRITE_TARGET_TABLE, command.program)) return [];
	const rule = WRITE_TARGET_TABLE[command.program]!;
	const scanned: ScannedWords = scanWords(command.args, rule);
	return rule.targets(scanned, command);
}

/** Every file the command visibly writes, creates or deletes, in the order written; sinks left out. */
export function writeTargets(command: SimpleCommand): WriteTarget[] {
	return [...redirectTargets(command), ...programTargets(command)].filter((t) => !isNotAFile(t.path));
}
