/**
 * Reading one program's arguments the way that program does: which words are option values and
 * which are operands. Without this, `curl -H "X: 1" host` would look like two destinations.
 */
import { type ScannedArgs, scanOptions } from "../admission/shell/option-scan.js";
import type { ShellWord } from "../admission/shell/shell-types.js";

export type { ScannedArgs, ScannedOption } from "../admission/shell/option-scan.js";

/** Splits arguments into options (with the values of `valueOptions`) and operands: see option-scan.ts. */
export function scanArgs(args: readonly ShellWord[], valueOptions: ReadonlySet<string>): ScannedArgs {
	return scanOptions(args, { values: valueOptions });
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
