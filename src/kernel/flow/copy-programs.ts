/**
 * Programs that copy what they read into a file they write. The flow plane gives the written file
 * the label of what the command read (shell-flow.ts), so a copy needs two things read right from
 * its command line: the files it reads, named here, and the files it writes, named by the write
 * target table (admission/shell/write-target-table.ts). A wrapper in front of a copier (`env`,
 * `nice`, `timeout`, `sudo -u`, `xargs` …) is looked through by the parser (wrappers.ts), so
 * `env cp .env pub.txt` reaches both as `cp .env pub.txt` does.
 */
import type { ShellWord, SimpleCommand } from "../admission/shell/shell-types.js";
import { scanWords, WRITE_TARGET_TABLE } from "../admission/shell/write-target-table.js";
import type { WriteTarget } from "../admission/shell/write-targets.js";

/**
 * How one copier names what it reads. `operands`: its operands (the destination among them is
 * written, and labelled either way); `stdin`: its standard input, a redirect or the pipeline's
 * earlier commands; `assigned`: `key=path` operands (`dd if=.env`), by key.
 */
export type CopySources = { kind: "operands" } | { kind: "stdin" } | { kind: "assigned"; keys: readonly string[] };

/** One row per copier; each row is tested with every wrapper in copy-programs.test.ts. */
export const COPIERS: Readonly<Record<string, CopySources>> = {
	cp: { kind: "operands" },
	mv: { kind: "operands" },
	install: { kind: "operands" },
	ln: { kind: "operands" },
	rsync: { kind: "operands" },
	cat: { kind: "operands" },
	tee: { kind: "stdin" },
	dd: { kind: "assigned", keys: ["if", "of"] },
};

/**
 * The paths a copier makes inside `dir` when its destination is a directory (`cp a b dir/`, `cp -t
 * dir a`, `rsync -a src/ dir`): each source's name under it, or `dir` itself for a source whose
 * contents are copied (a trailing `/`, as rsync reads it). Sources only known at run time give `dir`.
 */
export function copiesInto(c: SimpleCommand, dir: ShellWord): string[] {
	const spec = Object.hasOwn(COPIERS, c.program) ? COPIERS[c.program]! : undefined;
	if (spec?.kind !== "operands" || c.program === "cat" || !dir.static || !Object.hasOwn(WRITE_TARGET_TABLE, c.program)) return [];
	// Read as the write target table reads it, so an option's value (`install -m 600`) is no source.
	const sources = scanWords(c.args, WRITE_TARGET_TABLE[c.program]!).operands.filter((w) => !(w.static && w.value === dir.value));
	return [
		...new Set(
			sources.map((w) => {
				if (!w.static || (c.program === "rsync" && w.value.endsWith("/"))) return dir.value;
				const name = w.value.replace(/\/+$/, "").replace(/^.*\//, "");
				return name === "" || name === "." || name === ".." ? dir.value : `${dir.value.replace(/\/+$/, "")}/${name}`;
			}),
		),
	];
}

/**
 * Directories in which a command writes files it names only when it runs, and the names they
 * take: `git format-patch` writes `NNNN-<subject>.patch` into its `-o` directory, or here.
 */
export function namedAtRunTime(targets: readonly WriteTarget[]): { dir: string; name: RegExp }[] {
	const out: { dir: string; name: RegExp }[] = [];
	for (const t of targets) {
		if (t.via === "git format-patch -o" && t.path.static) out.push({ dir: t.path.value, name: PATCH_NAME });
		if (t.via === "git format-patch" && !t.path.static) out.push({ dir: ".", name: PATCH_NAME });
	}
	return out;
}

const PATCH_NAME = /^\d{4}-.*\.patch$/;

/** The path a `key=path` operand of a copier names, or undefined when the word is no such operand. */
export function assignedPath(program: string, word: string): string | undefined {
	const spec = Object.hasOwn(COPIERS, program) ? COPIERS[program]! : undefined;
	if (spec?.kind !== "assigned") return undefined;
	const eq = word.indexOf("=");
	return eq > 0 && spec.keys.includes(word.slice(0, eq)) ? word.slice(eq + 1) : undefined;
}
