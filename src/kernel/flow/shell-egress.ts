/**
 * What a shell command may send out, and the files it names, read from its parse before it runs.
 * The caller labels the files and admits the command as egress of them to every sink named here.
 * It errs toward "network": a program whose code Warden cannot see (opaque, or an interpreter
 * running inline code) may reach anywhere, so it names "net:unknown" besides any URL it shows.
 */
import type { ParsedShell, SimpleCommand } from "../admission/shell/shell-types.js";
import { fetchAndRun } from "../admission/process-reach.js";
import { assignedPath } from "./copy-programs.js";
import { inlineCode } from "./shell-egress-inline.js";
import { pipArgs, type ProgramEgress, programEgress, wordUrls } from "./shell-egress-programs.js";
import { fileUrlPaths, isUrl, UNKNOWN_SINK, urlSink, urlsIn } from "./shell-egress-sinks.js";

export { DNS_SINK, UNKNOWN_SINK } from "./shell-egress-sinks.js";

export interface ShellEgress {
	/** Some sub-command may reach the network (a network client, or an opaque program / interpreter running inline code). */
	network: boolean;
	/** Canonical sinks (`net:https://host:443`, `net:ssh://host:22`, `net:dns`, `net:unknown`), deduplicated and sorted. */
	sinks: string[];
	/** Static file operands, option files (`curl -d @.env`) and redirect targets, as written. */
	files: string[];
	/** Words that are globs (`*`, `?`, `[`): the caller tests them against secret-file patterns. */
	globs: string[];
}

const GLOB = /[*?[]/;
/** Programs whose operands are text, not files. */
const TEXT_OPERANDS = new Set(["echo", "printf", ":", "true", "false"]);
/** Programs whose leading operands are sub-command words (`git add`, `npm publish`, `aws s3 cp`), not files: how many. */
export const SUBCOMMAND_WORDS: Readonly<Record<string, number>> = {
	...Object.fromEntries(["git", "npm", "pnpm", "yarn", "bun", "cargo", "go", "docker", "podman", "kubectl", "helm", "pip", "pip3", "pipx", "uv", "brew", "apt", "apt-get", "systemctl", "terraform", "7z", "gsutil"].map((p) => [p, 1])),
	...Object.fromEntries(["gh", "aws", "gcloud", "az"].map((p) => [p, 2])),
};
/** Option values that are messages or settings, not paths, per program. */
const TEXT_VALUES: Readonly<Record<string, readonly string[]>> = { git: ["-m", "--message", "-c"] };
/** Device files that hold no workspace data. */
const NOT_DATA = new Set(["/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero"]);

class Collector {
	network = false;
	readonly sinks = new Set<string>();
	readonly files = new Set<string>();
	readonly globs = new Set<string>();

	/** A word that names a local path: globs go to the caller's pattern test, the rest as written. */
	path(text: string): void {
		if (text === "" || text === "-" || NOT_DATA.has(text) || /^\/dev\/fd\//.test(text)) return;
		if (GLOB.test(text)) this.globs.add(text);
		else this.files.add(text);
	}

	result(): ShellEgress {
		return { network: this.network, sinks: [...this.sinks].sort(), files: [...this.files], globs: [...this.globs] };
	}
}

/** The words of a command that may be files: static operands and option values, URLs left out. */
function operandPaths(c: SimpleCommand): string[] {
	if (TEXT_OPERANDS.has(c.program)) return [];
	const out: string[] = [];
	const operands = [...c.normalized.operands];
	// `tar cz .`: tar's old-style first word is a bundle of mode letters.
	const tarMode = /^(bsd|g)?tar$/.test(c.program) && c.args[0]?.static === true && /^[A-Za-z]+$/.test(c.args[0].value) && operands[0]?.value === c.args[0].value;
	const words = tarMode ? 1 : Object.hasOwn(SUBCOMMAND_WORDS, c.program) ? SUBCOMMAND_WORDS[c.program]! : 0;
	for (let i = 0; i < words && operands[0]?.static === true; i++) operands.shift();
	for (const w of operands) {
		if (!w.static || w.value.startsWith("-") || isUrl(w.value)) continue;
		// `dd if=.env`: the file is the value, not the word.
		out.push(assignedPath(c.program, w.value) ?? w.value);
	}
	const text = TEXT_VALUES[c.program] ?? [];
	for (const flag of c.normalized.flags) {
		if (text.some((t) => flag.startsWith(`${t} `) || flag.startsWith(`${t}=`))) continue;
		const space = flag.indexOf(" ");
		const eq = flag.startsWith("--") ? flag.indexOf("=") : -1;
		const value = space !== -1 ? flag.slice(space + 1) : eq !== -1 ? flag.slice(eq + 1) : undefined;
		// A value with spaces or expansions is a message or a computed word, not a path as written.
		if (value !== undefined && value !== "" && !/[\s$`]/.test(value) && !/^\d+$/.test(value) && !isUrl(value)) out.push(value);
	}
	return out;
}

/** `python -m pip install …` is pip. */
function modulePip(c: SimpleCommand): ProgramEgress | undefined {
	if (!/^(python[0-9.]*|pypy[0-9.]*)$/.test(c.program)) return undefined;
	const at = c.args.findIndex((w) => w.value === "-m");
	return at !== -1 && c.args[at + 1]?.value === "pip" ? pipArgs(c.args.slice(at + 2)) : undefined;
}

/** A sub-command whose code Warden cannot read: it may go anywhere, and anywhere its words show. */
function unreadable(c: SimpleCommand, code: string): ProgramEgress {
	const sinks: string[] = [];
	const files = fileUrlPaths(code);
	for (const url of urlsIn(code)) {
		const sink = urlSink(url);
		if (sink) sinks.push(sink);
	}
	return { network: true, sinks, unknown: true, files, operandFiles: c.opaque };
}

/** `npx -y pkg`, `uvx tool`: the runner fetches the package from a registry Warden does not read, then runs it. */
function packageRunner(c: SimpleCommand): ProgramEgress | undefined {
	return fetchAndRun(c) ? { network: true, sinks: [], unknown: true, files: [], operandFiles: true } : undefined;
}

function commandEgress(c: SimpleCommand): ProgramEgress | undefined {
	if (c.opaque || !c.programKnown) return unreadable(c, [c.programPath, ...wordUrls(c)].join(" "));
	const code = inlineCode(c);
	if (code !== undefined) return unreadable(c, code);
	return modulePip(c) ?? programEgress(c) ?? packageRunner(c);
}

export function shellEgress(parsed: ParsedShell): ShellEgress {
	const out = new Collector();
	// Text that yields no command but does not parse could be anything.
	if (parsed.commands.length === 0 && parsed.malformed) {
		out.network = true;
		out.sinks.add(UNKNOWN_SINK);
	}
	for (const c of parsed.commands) {
		const egress = commandEgress(c);
		for (const r of c.redirects) {
			if ((r.kind === "read" || r.kind === "write") && r.target.static) out.path(r.target.value);
		}
		// A client Warden reads (scp, socat …) names its files itself; any other program's operands may be files.
		const files = egress ? [...egress.files, ...(egress.operandFiles ? operandPaths(c) : [])] : operandPaths(c);
		for (const p of files) out.path(p);
		if (!egress?.network) continue;
		out.network = true;
		const sinks = [...egress.sinks];
		for (const url of wordUrls(c)) {
			const sink = urlSink(url);
			if (sink) sinks.push(sink);
			else if (!/^file:/i.test(url)) egress.unknown = true;
		}
		for (const p of wordUrls(c).flatMap(fileUrlPaths)) out.path(p);
		for (const s of sinks) out.sinks.add(s);
		// Arguments that arrive at run time (xargs, find -exec) may carry another destination.
		if (egress.unknown || sinks.length === 0 || c.argsFromInput) out.sinks.add(UNKNOWN_SINK);
	}
	return out.result();
}
