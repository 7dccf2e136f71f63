/**
 * Git's executable config: keys whose value names a program git runs on its own (a hook directory,
 * a pager, a filter driver, an alias), or a file it reads more such keys from. A command that sets
 * one — `git config core.hooksPath .h`, `git -c core.fsmonitor=./x status`, `GIT_CONFIG_COUNT=1 …` —
 * is code execution outside the sandbox, later or right away, so it is decided like a write to a
 * protected path. Reading config (`git config --get`, `--list`) is not.
 *
 * Keys are data, one test per row. A pattern is `section.name`, `section.*.name` (any subsection)
 * or `section.*` (any key of the section); matching ignores case, as git does for sections and names.
 */
import type { ShellWord, SimpleCommand } from "./shell/shell-types.js";

export interface GitExecKey {
	/** `core.hooksPath`, `filter.*.clean`, `alias.*`. */
	key: string;
	/** What git does with it: shown in the approval prompt. */
	reason: string;
}

export const GIT_EXEC_KEYS: readonly GitExecKey[] = [
	{ key: "core.hooksPath", reason: "git runs the hooks in the directory it names, outside the sandbox, on the next commit" },
	{ key: "core.fsmonitor", reason: "git runs the program it names on every status" },
	{ key: "core.sshCommand", reason: "git runs the command it names for every ssh fetch or push" },
	{ key: "core.pager", reason: "git runs the pager it names" },
	{ key: "core.editor", reason: "git runs the editor it names" },
	{ key: "core.askPass", reason: "git runs the program it names to ask for credentials" },
	{ key: "core.gitProxy", reason: "git runs the proxy command it names" },
	{ key: "core.attributesFile", reason: "it names the attributes file that chooses which filter and diff drivers git runs" },
	{ key: "sequence.editor", reason: "git runs the editor it names during a rebase" },
	{ key: "diff.external", reason: "git runs the program it names for every diff" },
	{ key: "diff.*.textconv", reason: "git runs the program it names to show a diff" },
	{ key: "diff.*.command", reason: "git runs the program it names as a diff driver" },
	{ key: "difftool.*.cmd", reason: "git runs the command it names as a diff tool" },
	{ key: "mergetool.*.cmd", reason: "git runs the command it names as a merge tool" },
	{ key: "merge.*.driver", reason: "git runs the command it names as a merge driver" },
	{ key: "filter.*.clean", reason: "git runs the filter it names on every add" },
	{ key: "filter.*.smudge", reason: "git runs the filter it names on every checkout" },
	{ key: "filter.*.process", reason: "git runs the filter process it names" },
	{ key: "alias.*", reason: "an alias can run a shell command (`!…`) or shadow what a git command does" },
	{ key: "include.path", reason: "git reads more config, which can name programs, from the file it names" },
	{ key: "includeIf.*.path", reason: "git reads more config, which can name programs, from the file it names" },
	{ key: "credential.helper", reason: "git runs the credential helper it names" },
	{ key: "credential.*.helper", reason: "git runs the credential helper it names" },
	{ key: "gpg.program", reason: "git runs the signing program it names" },
	{ key: "gpg.*.program", reason: "git runs the signing program it names" },
	{ key: "gpg.*.defaultKeyCommand", reason: "git runs the command it names to find a signing key" },
	{ key: "uploadpack.packObjectsHook", reason: "git runs the hook it names when serving a fetch" },
	{ key: "hook.*.command", reason: "git runs the command it names as a hook" },
	{ key: "pager.*", reason: "git runs the pager it names for that command" },
	{ key: "interactive.diffFilter", reason: "git runs the filter it names in interactive add" },
	{ key: "submodule.*.update", reason: "a `!command` value is run on every submodule update" },
	{ key: "remote.*.uploadpack", reason: "git runs the program it names for a fetch from that remote" },
	{ key: "remote.*.receivepack", reason: "git runs the program it names for a push to that remote" },
	{ key: "protocol.allow", reason: "it can allow the ext:: transport, which runs commands" },
	{ key: "protocol.*.allow", reason: "it can allow the ext:: transport, which runs commands" },
	{ key: "init.templateDir", reason: "git copies the hooks of the template it names into new repositories" },
	{ key: "web.browser", reason: "git runs the browser it names" },
	{ key: "browser.*.cmd", reason: "git runs the browser command it names" },
	{ key: "browser.*.path", reason: "git runs the browser program it names" },
	{ key: "sendemail.sendmailCmd", reason: "git runs the command it names to send mail" },
	{ key: "sendemail.smtpServer", reason: "an absolute path here is a program git runs to send mail" },
];

/** Environment variables that hand git config entries (or another config file) for one run. */
export const GIT_CONFIG_ENV_PREFIX = "GIT_CONFIG";

/** Which row a key meets, and the key as written. */
export interface GitExecConfigHit {
	/** The key as the command wrote it (or the variable / option that carried it). */
	key: string;
	/** The row's pattern, or the variable prefix, or the option. */
	pattern: string;
	reason: string;
}

interface ParsedKey {
	section: string;
	subsection?: string;
	name: string;
}

function parseKey(key: string): ParsedKey | undefined {
	const first = key.indexOf(".");
	const last = key.lastIndexOf(".");
	if (first <= 0 || last === key.length - 1) return undefined;
	const section = key.slice(0, first).toLowerCase();
	const name = key.slice(last + 1).toLowerCase();
	if (first === last) return { section, name };
	return { section, subsection: key.slice(first + 1, last), name };
}

/** Whether `key` (as git would read it) is one of the row's. */
export function keyMatches(row: string, key: string): boolean {
	const k = parseKey(key);
	if (!k) return false;
	const parts = row.toLowerCase().split(".");
	if (parts[0] !== k.section) return false;
	if (parts.length === 2) return parts[1] === "*" || (k.subsection === undefined && parts[1] === k.name);
	return k.subsection !== undefined && parts[2] === k.name;
}

/** The row an exact key meets, if any. */
export function gitExecKey(key: string): GitExecKey | undefined {
	return GIT_EXEC_KEYS.find((row) => keyMatches(row.key, key));
}

/** The section a `--rename-section` / `--remove-section` names holds executable keys. */
function sectionRow(section: string): GitExecKey | undefined {
	const s = section.split(".")[0]!.toLowerCase();
	return GIT_EXEC_KEYS.find((row) => row.key.split(".")[0]!.toLowerCase() === s);
}

function hitFor(key: ShellWord, how: string): GitExecConfigHit | undefined {
	if (!key.static) return { key: key.value, pattern: "<key only known at run time>", reason: `${how} a git config key only known at run time, which may name a program git runs` };
	const row = gitExecKey(key.value);
	return row ? { key: key.value, pattern: row.key, reason: `${how} git's ${key.value}: ${row.reason}` } : undefined;
}

/** git's own options before the sub-command that take a separate value. */
const GIT_GLOBAL_WITH_VALUE = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--list-cmds", "--attr-source"]);

/** `git config` options that take a separate value (the value is not the key). */
const CONFIG_WITH_VALUE = new Set(["-f", "--file", "--blob", "--type", "--default", "--comment", "--value"]);
/** Actions that only read. */
const CONFIG_READ_ACTIONS = new Set(["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool", "--list", "-l"]);
/** Actions that change config; `--edit` opens the whole file. */
const CONFIG_WRITE_ACTIONS = new Set(["--add", "--replace-all", "--unset", "--unset-all", "--rename-section", "--remove-section", "--edit", "-e"]);
const CONFIG_SUBCOMMANDS_READ = new Set(["get", "list"]);
const CONFIG_SUBCOMMANDS_WRITE = new Set(["set", "unset", "rename-section", "remove-section", "edit"]);

/**
 * What in this command makes git run a program it would not otherwise: a `GIT_CONFIG*` variable,
 * `git -c` / `--config-env` with an executable key, `--exec-path=`, or `git config` changing such
 * a key. Undefined for everything else (reading config included).
 */
export function gitExecConfigChange(command: SimpleCommand): GitExecConfigHit | undefined {
	const fromEnv = envHit(command);
	if (fromEnv) return fromEnv;
	if (command.program !== "git") return undefined;
	const args = command.args;
	let i = 0;
	// git's global options, up to the sub-command.
	while (i < args.length) {
		const word = args[i]!;
		const v = word.value;
		if (!word.static) return { key: v, pattern: "<option only known at run time>", reason: "runs git with an option only known at run time, which may set a config key that names a program" };
		if (!v.startsWith("-")) break;
		if (v === "-c" || v === "--config-env") {
			const next = args[i + 1];
			if (next) {
				const hit = configPair(next, v);
				if (hit) return hit;
			}
			i += 2;
			continue;
		}
		if (v.startsWith("--config-env=")) {
			const hit = configPair({ value: v.slice("--config-env=".length), static: true }, "--config-env");
			if (hit) return hit;
		} else if (v.startsWith("-c") && v.length > 2) {
			const hit = configPair({ value: v.slice(2), static: true }, "-c");
			if (hit) return hit;
		} else if (v === "--exec-path" || v.startsWith("--exec-path=")) {
			if (v.includes("=")) return { key: "--exec-path", pattern: "--exec-path", reason: "runs git with --exec-path: git runs its sub-commands from the directory it names" };
		}
		i += GIT_GLOBAL_WITH_VALUE.has(v) ? 2 : 1;
	}
	if (args[i]?.value !== "config") return undefined;
	return configCommand(args.slice(i + 1));
}

function envHit(command: SimpleCommand): GitExecConfigHit | undefined {
	const named = command.env.find((e) => e.name.toUpperCase().startsWith(GIT_CONFIG_ENV_PREFIX));
	if (named) return { key: named.name, pattern: `${GIT_CONFIG_ENV_PREFIX}*`, reason: `sets ${named.name}: it hands git config entries (or a config file), which can name programs git runs` };
	// `export GIT_CONFIG_COUNT=1` affects every later git of the script.
	if (command.program === "export" || command.program === "declare" || command.program === "typeset" || command.program === "readonly") {
		const word = command.args.find((a) => a.value.toUpperCase().startsWith(GIT_CONFIG_ENV_PREFIX) || !a.static);
		if (word) return { key: word.value.split("=")[0]!, pattern: `${GIT_CONFIG_ENV_PREFIX}*`, reason: `exports ${word.static ? word.value.split("=")[0] : "a variable only known at run time"}: it can hand git config entries, which can name programs git runs` };
	}
	return undefined;
}

/** `key=value` after `-c`, or `key=ENVVAR` after `--config-env`. */
function configPair(word: ShellWord, option: string): GitExecConfigHit | undefined {
	const eq = word.value.indexOf("=");
	const key = eq < 0 ? word.value : word.value.slice(0, eq);
	return hitFor({ value: key, static: word.static }, `runs git with ${option} setting`);
}

function configCommand(args: readonly ShellWord[]): GitExecConfigHit | undefined {
	const operands: ShellWord[] = [];
	let action: string | undefined;
	for (let i = 0; i < args.length; i++) {
		const word = args[i]!;
		const v = word.value;
		if (word.static && v.startsWith("-") && v !== "-") {
			const name = v.includes("=") ? v.slice(0, v.indexOf("=")) : v;
			if (CONFIG_READ_ACTIONS.has(name) || CONFIG_WRITE_ACTIONS.has(name)) action ??= name;
			if (CONFIG_WITH_VALUE.has(name) && !v.includes("=")) i++;
			continue;
		}
		operands.push(word);
	}
	// The sub-command form: `git config set|unset|get|list …`.
	const sub = operands[0]?.static ? operands[0].value : undefined;
	if (action === undefined && sub !== undefined && (CONFIG_SUBCOMMANDS_READ.has(sub) || CONFIG_SUBCOMMANDS_WRITE.has(sub))) {
		if (CONFIG_SUBCOMMANDS_READ.has(sub)) return undefined;
		action = sub === "set" ? "--add" : `--${sub}`;
		operands.shift();
	}
	if (action !== undefined && CONFIG_READ_ACTIONS.has(action)) return undefined;
	if (action === "--edit" || action === "-e") {
		return { key: "--edit", pattern: "--edit", reason: "opens git's config in an editor: any key, including those that name programs, can change" };
	}
	const key = operands[0];
	if (key === undefined) return undefined;
	if (action === "--rename-section" || action === "--remove-section") {
		if (!key.static) return hitFor(key, "changes");
		const row = sectionRow(key.value);
		return row ? { key: key.value, pattern: row.key, reason: `changes git's ${key.value} section: ${row.reason}` } : undefined;
	}
	// Without an action, one operand reads the key and more set it.
	if (action === undefined && operands.length < 2) return undefined;
	return hitFor(key, "changes");
}
