/**
 * The files a command writes, as its text shows them. This is the minimal version the flow plane
 * needs: redirect targets (`>`, `>>`, `&>`, `>|`) and `tee` operands. The full table of programs
 * that write their operands (cp, dd of=, sed -i, git diff --output …) is being built beside it and
 * replaces this file with the same interface.
 */
import type { ShellWord, SimpleCommand } from "./shell-types.js";

export interface WriteTarget {
	path: ShellWord;
	kind: "write" | "append" | "delete" | "create-dir";
	/** What writes it: the redirect operator or the program. */
	via: string;
}

const TEE_APPEND = new Set(["-a", "--append"]);

/** Device files whose writes hold no workspace data. */
const DEVICES = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/;

export function writeTargets(command: SimpleCommand): WriteTarget[] {
	const out: WriteTarget[] = [];
	for (const r of command.redirects) {
		if (r.kind !== "write") continue;
		if (r.target.static && DEVICES.test(r.target.value)) continue;
		out.push({ path: r.target, kind: r.operator.includes(">>") ? "append" : "write", via: r.operator });
	}
	if (command.program === "tee") {
		let append = false;
		let optionsDone = false;
		const files: ShellWord[] = [];
		for (const w of command.args) {
			if (!optionsDone && w.static && w.value === "--") {
				optionsDone = true;
				continue;
			}
			if (!optionsDone && w.static && w.value.startsWith("-") && w.value !== "-") {
				if (TEE_APPEND.has(w.value) || (/^-[a-z]+$/.test(w.value) && w.value.includes("a"))) append = true;
				continue;
			}
			files.push(w);
		}
		for (const f of files) {
			if (f.static && (f.value === "-" || DEVICES.test(f.value))) continue;
			out.push({ path: f, kind: append ? "append" : "write", via: "tee" });
		}
	}
	return out;
}
