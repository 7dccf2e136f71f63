/**
 * Reading one program's arguments the way that program does: which words are options, which are
 * option values and which are operands. Without this, `curl -H "X: 1" host` would look like two
 * destinations and `sort -k 2 -o out` would name `2`. The flow plane's egress analysis and the
 * write-target table both read arguments through this one scanner.
 */
import type { ShellWord } from "./shell-types.js";

export interface ScannedOption {
	/** The spelling used (`-o`, `--output`), without any `=value`. */
	name: string;
	value?: ShellWord;
}

export interface ScannedArgs {
	options: ScannedOption[];
	operands: ShellWord[];
}

export interface OptionRule {
	/** Options that take a value: the rest of a short cluster, the next word, or `--long=value`. */
	values?: ReadonlySet<string> | undefined;
	/** Options whose value can only be attached (`sed -i.bak`, `perl -pi.orig`), never the next word. */
	attached?: ReadonlySet<string> | undefined;
	/** Every argument is an operand (`dd of=x`). */
	noOptions?: boolean | undefined;
	/** Old-style first word with no dash holds option letters (`tar xzf a.tgz`). */
	bundledFirst?: boolean | undefined;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * Splits arguments into options (with their values) and operands; `--` ends the options. Short
 * clusters are split (`-sSd @f`); a value option inside a cluster takes the rest of it, or the next
 * word. A word only known at run time is an operand unless an option is waiting for its value.
 */
export function scanOptions(args: readonly ShellWord[], rule: OptionRule): ScannedArgs {
	if (rule.noOptions) return { options: [], operands: [...args] };
	const values = rule.values ?? NONE;
	const attached = rule.attached ?? NONE;
	const out: ScannedArgs = { options: [], operands: [] };
	let optionsDone = false;
	for (let i = 0; i < args.length; i++) {
		const word = args[i]!;
		let v = word.value;
		if (i === 0 && rule.bundledFirst && word.static && /^[A-Za-z]+$/.test(v)) v = `-${v}`;
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
			const name = eq === -1 ? v : v.slice(0, eq);
			if (eq !== -1) out.options.push({ name, value: { value: v.slice(eq + 1), static: true } });
			else if (values.has(name) && i + 1 < args.length) out.options.push({ name, value: args[++i]! });
			else out.options.push({ name });
			continue;
		}
		for (let j = 1; j < v.length; j++) {
			const name = `-${v[j]}`;
			const rest = v.slice(j + 1);
			if (attached.has(name)) {
				out.options.push(rest === "" ? { name } : { name, value: { value: rest, static: true } });
				break;
			}
			if (!values.has(name)) {
				out.options.push({ name });
				continue;
			}
			if (rest !== "") out.options.push({ name, value: { value: rest, static: true } });
			else if (i + 1 < args.length) out.options.push({ name, value: args[++i]! });
			else out.options.push({ name });
			break;
		}
	}
	return out;
}
