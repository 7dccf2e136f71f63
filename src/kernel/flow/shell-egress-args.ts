/**
 * Reading one program's arguments the way that program does: which words are option values and
 * which are operands. Without this, `curl -H "X: 1" host` would look like two destinations.
 */
import type { ShellWord } from "../admission/shell/shell-types.js";

export interface ScannedOption {
	/** `-d`, `--data`: the spelling used, without any `=value`. */
	name: string;
	value?: ShellWord;
}

export interface ScannedArgs {
	options: ScannedOption[];
	operands: ShellWord[];
}

/**
 * Splits arguments into options (with the values of `valueOptions`) and operands. Short clusters
 * are split (`-sSd @f`); a value option inside a cluster takes the rest of it, or the next word.
 * A word only known at run time is an operand unless an option is waiting for its value.
 */
export function scanArgs(args: readonly ShellWord[], valueOptions: ReadonlySet<string>): ScannedArgs {
	const out: ScannedArgs = { options: [], operands: [] };
	let optionsDone = false;
	for (let i = 0; i < args.length; i++) {
		const word = args[i]!;
		const v = word.value;
		if (optionsDone || !word.static || v === "-" || !v.startsWith("-") || /^-\d/.test(v)) {
			out.operands.push(word);
			continue;
		}
		if (v === "--") {
			optionsDone = true;
			continue;
		}
		if (v.startsWith("--")) {
			const eq = v.indexOf("=");
			if (eq !== -1) out.options.push({ name: v.slice(0, eq), value: { value: v.slice(eq + 1), static: true } });
			else if (valueOptions.has(v) && i + 1 < args.length) out.options.push({ name: v, value: args[++i]! });
			else out.options.push({ name: v });
			continue;
		}
		for (let j = 1; j < v.length; j++) {
			const name = `-${v[j]}`;
			if (!valueOptions.has(name)) {
				out.options.push({ name });
				continue;
			}
			const rest = v.slice(j + 1);
			if (rest !== "") out.options.push({ name, value: { value: rest, static: true } });
			else if (i + 1 < args.length) out.options.push({ name, value: args[++i]! });
			else out.options.push({ name });
			break;
		}
	}
	return out;
}

/** The values given to any of `names`. */
export function valuesOf(scanned: ScannedArgs, names: ReadonlySet<string>): ShellWord[] {
	return scanned.options.filter((o) => names.has(o.name) && o.value !== undefined).map((o) => o.value!);
}

export function hasOption(scanned: ScannedArgs, names: ReadonlySet<string>): boolean {
	return scanned.options.some((o) => names.has(o.name));
}

/** The text a word stands for: its value when static, its expansions as written otherwise. */
export function wordText(word: ShellWord): string {
	return word.static ? word.value : (word.scriptText ?? word.value);
}
