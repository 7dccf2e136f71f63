/**
 * Interpreters handed code on their command line (`node -e`, `python -c`, `perl -ne` …): the code
 * may open any connection, so Warden reads only the URLs it can see in it and assumes the rest.
 */
import type { ShellWord, SimpleCommand } from "../admission/shell/shell-types.js";
import { wordText } from "./shell-egress-args.js";

interface InlineSpec {
	/** Options whose value is the code (`-e`, `--eval`); short ones also count inside a cluster (`-ne`). */
	code: readonly string[];
	/** Options that take a value before the code, so that value is not mistaken for a script file. */
	values?: readonly string[];
	/** False where single-dash words are whole option names (`pwsh -NoProfile`). */
	clusters?: boolean;
}

const NODE: InlineSpec = {
	code: ["-e", "--eval", "-p", "--print"],
	values: ["-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--input-type", "--env-file", "--title"],
};
const PYTHON: InlineSpec = { code: ["-c"], values: ["-W", "-X", "-Q"] };
const PERL: InlineSpec = { code: ["-e", "-E"], values: ["-I", "-M", "-m"] };
const POWERSHELL: InlineSpec = { code: ["-c", "-command", "-Command", "-encodedcommand", "-EncodedCommand", "-ec", "-e"], clusters: false };

const INTERPRETERS: Record<string, InlineSpec> = {
	node: NODE,
	nodejs: NODE,
	bun: { code: ["-e", "--eval", "-p", "--print"] },
	perl: PERL,
	ruby: { code: ["-e"], values: ["-I", "-r", "-C"] },
	php: { code: ["-r", "-B", "-R", "-E"], values: ["-c", "-d", "-z"] },
	lua: { code: ["-e"], values: ["-l"] },
	luajit: { code: ["-e"], values: ["-l"] },
	Rscript: { code: ["-e"] },
	osascript: { code: ["-e"] },
	pwsh: POWERSHELL,
	powershell: POWERSHELL,
};

const AWKS = new Set(["awk", "gawk", "mawk", "nawk", "busybox-awk"]);
/** awk code that talks to the network (gawk's /inet special files) or runs other programs. */
const AWK_REACHES_OUT = /\/inet[46]?\/|system\s*\(|\|\s*&|\|\s*"|"\s*\|/;

function specOf(program: string): InlineSpec | undefined {
	if (/^(python[0-9.]*|pypy[0-9.]*)$/.test(program)) return PYTHON;
	return Object.hasOwn(INTERPRETERS, program) ? INTERPRETERS[program] : undefined;
}

/** The code an interpreter is given inline, or undefined when it runs a file (or nothing). */
function inlineOption(args: readonly ShellWord[], spec: InlineSpec): ShellWord | undefined {
	const values = new Set(spec.values ?? []);
	const longCode = spec.code.filter((o) => o.length > 2);
	const shortCode = new Set(spec.code.filter((o) => o.length === 2).map((o) => o[1]!));
	for (let i = 0; i < args.length; i++) {
		const word = args[i]!;
		const v = word.value;
		// The first operand is the script; what follows belongs to it, not to the interpreter.
		if (!word.static || !v.startsWith("-") || v === "-" || v === "--") return undefined;
		const eq = v.indexOf("=");
		const name = eq === -1 ? v : v.slice(0, eq);
		if (longCode.includes(name)) return eq === -1 ? args[i + 1] : { value: v.slice(eq + 1), static: true };
		if (v.length === 2 && shortCode.has(v[1]!)) return args[i + 1];
		if (values.has(name)) {
			if (eq === -1) i++;
			continue;
		}
		if (v.startsWith("--") || spec.clusters === false || !/^-[A-Za-z]/.test(v)) continue;
		for (let j = 1; j < v.length; j++) {
			const letter = v[j]!;
			const rest = v.slice(j + 1);
			if (shortCode.has(letter)) return rest !== "" ? { value: rest, static: true } : args[i + 1];
			// `-Mstrict`, `-W ignore`: the rest of the cluster, or the next word, is that option's value.
			if (values.has(`-${letter}`)) {
				if (rest === "") i++;
				break;
			}
		}
	}
	return undefined;
}

/** Whether the interpreter names a script file to run; `-` (or nothing) means it reads its code from standard input. */
function namesScriptFile(args: readonly ShellWord[], spec: InlineSpec): boolean {
	const values = new Set(spec.values ?? []);
	for (let i = 0; i < args.length; i++) {
		const word = args[i]!;
		const v = word.value;
		if (!word.static || !v.startsWith("-")) return true;
		if (v === "-") return false;
		if (v === "--") return args[i + 1] !== undefined && args[i + 1]!.value !== "-";
		if (values.has(v)) i++;
	}
	return false;
}

/**
 * Code an interpreter reads from standard input (`python3 - <<'EOF'`, `node < x.js`, `… | python3`):
 * inline code like `-c`'s. A heredoc or here-string shows its text; a file or a pipe does not.
 */
function stdinCode(c: SimpleCommand): string | undefined {
	const stdin = c.redirects.findLast((r) => r.kind === "heredoc" || (r.kind === "read" && (r.fd === undefined || r.fd === "0")));
	if (stdin?.body) return wordText(stdin.body);
	if (stdin?.kind === "read" || c.inPipeline) return "";
	return undefined;
}

/** The code text a command runs inline, when it does (the empty string for code Warden cannot see). */
export function inlineCode(c: SimpleCommand): string | undefined {
	if (c.program === "deno") {
		const [sub, ...rest] = c.args;
		if (sub?.value === "eval") {
			const code = rest.find((w) => !w.static || !w.value.startsWith("-"));
			return code ? wordText(code) : "";
		}
		return undefined;
	}
	if (AWKS.has(c.program)) {
		const program = c.args.find((w) => !w.static || !w.value.startsWith("-"));
		if (!program) return undefined;
		const text = wordText(program);
		return program.static && !AWK_REACHES_OUT.test(text) ? undefined : text;
	}
	const spec = specOf(c.program);
	if (!spec) return undefined;
	const code = inlineOption(c.args, spec);
	if (code) return wordText(code);
	return namesScriptFile(c.args, spec) ? undefined : stdinCode(c);
}
