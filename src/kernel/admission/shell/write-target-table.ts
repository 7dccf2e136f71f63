/**
 * Which operands and option values each program writes, as data: one row per program, each read
 * the way that program reads its own arguments (its value-taking options first, so `sort -k 2 -o
 * out` names `out`, not `2`). A row names only what the command line shows; what a program writes
 * on its own (caches, logs) or names elsewhere (a patch's file list, an archive's members) is
 * reported as a target whose value is only known at run time, inside the directory it lands in.
 */
import { type OptionRule, type ScannedArgs, type ScannedOption, scanOptions } from "./option-scan.js";
import type { ShellWord, SimpleCommand } from "./shell-types.js";
import type { WriteTarget } from "./write-targets.js";

/** Arguments as the program reads them (option-scan.ts). */
export type ScannedWords = ScannedArgs;
export type { ScannedOption };

export interface WriteRule {
	/** Options that take a value: the rest of a short cluster, the next word, or `--long=value`. */
	values?: readonly string[];
	/** Options whose value can only be attached (`sed -i.bak`, `perl -pi.orig`), never the next word. */
	attached?: readonly string[];
	/** Every argument is an operand (`dd of=x`). */
	noOptions?: boolean;
	/** Old-style first word with no dash holds option letters (`tar xzf a.tgz`). */
	bundledFirst?: boolean;
	targets: (scanned: ScannedWords, command: SimpleCommand) => WriteTarget[];
}

type ScanRule = Pick<WriteRule, "values" | "attached" | "noOptions" | "bundledFirst">;

/** Each row's option sets, built once: a row is read for every command of its program. */
const OPTION_RULES = new WeakMap<ScanRule, OptionRule>();

function optionRule(rule: ScanRule): OptionRule {
	let found = OPTION_RULES.get(rule);
	if (found === undefined) {
		found = {
			values: rule.values ? new Set(rule.values) : undefined,
			attached: rule.attached ? new Set(rule.attached) : undefined,
			noOptions: rule.noOptions,
			bundledFirst: rule.bundledFirst,
		};
		OPTION_RULES.set(rule, found);
	}
	return found;
}

/** Splits arguments into options and operands as `rule` says; `--` ends the options. */
export function scanWords(args: readonly ShellWord[], rule: ScanRule): ScannedWords {
	return scanOptions(args, optionRule(rule));
}

// Reading a scan ------------------------------------------------------------------------------

const has = (s: ScannedWords, ...names: string[]): boolean => s.options.some((o) => names.includes(o.name));
const valuesOf = (s: ScannedWords, ...names: string[]): ShellWord[] =>
	s.options.filter((o) => names.includes(o.name) && o.value !== undefined).map((o) => o.value!);
const target = (path: ShellWord, kind: WriteTarget["kind"], via: string): WriteTarget => ({ path, kind, via });
const word = (value: string): ShellWord => ({ value, static: true });
/** A name only the run will tell, shown as what it is. */
const unknown = (what: string): ShellWord => ({ value: what, static: false });

/** `dir/name`, kept dynamic when either part is. */
function under(dir: ShellWord | undefined, name: ShellWord): ShellWord {
	if (!dir || (name.static && name.value.startsWith("/"))) return name;
	const value = `${dir.value.replace(/\/+$/, "")}/${name.value}`;
	return dir.static && name.static ? word(value) : { value, static: false };
}

/** The file name a downloader derives from a URL's path (`https://h/a/x.sh?q` → `x.sh`); undefined when it has none. */
function urlFileName(url: ShellWord): ShellWord | undefined {
	if (!url.static) return unknown(`<file named after ${url.value}>`);
	const m = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*([^?#]*)/.exec(url.value);
	const path = m ? m[1]! : url.value.replace(/^[^/]*/, "");
	const name = path.slice(path.lastIndexOf("/") + 1);
	return name === "" || name === "." || name === ".." ? undefined : word(decodeURIComponentSafe(name));
}

function decodeURIComponentSafe(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}

const looksLikeUrl = (w: ShellWord): boolean => !w.static || /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(w.value) || /^[\w.-]+\.[a-z]{2,}(?:[:/]|$)/i.test(w.value);

// Shapes shared by several programs -------------------------------------------------------------

/** Every operand, one kind. */
const allOperands = (kind: WriteTarget["kind"], via: string) => (s: ScannedWords): WriteTarget[] => s.operands.map((o) => target(o, kind, via));

/** `cp`-like: the `-t DIR` value, else the last of two or more operands. */
function destination(s: ScannedWords, program: string): WriteTarget[] {
	const dirs = valuesOf(s, "-t", "--target-directory");
	if (dirs.length > 0) return dirs.map((d) => target(d, "write", `${program} -t`));
	if (s.operands.length < 2) return [];
	return [target(s.operands[s.operands.length - 1]!, "write", `${program} destination`)];
}

/** `chmod MODE FILE…`: the first operand is the mode or owner unless `--reference` gave it. */
function afterSpec(via: string, modeInOptions?: RegExp) {
	return (s: ScannedWords): WriteTarget[] => {
		const specGiven = has(s, "--reference") || (modeInOptions !== undefined && s.options.some((o) => modeInOptions.test(o.name)));
		return (specGiven ? s.operands : s.operands.slice(1)).map((o) => target(o, "write", via));
	};
}

const CP_VALUES = ["-t", "--target-directory", "-S", "--suffix", "--backup", "--reflink", "--sparse", "--preserve", "--no-preserve"];
const CURL_VALUES = [
	"-d", "--data", "--data-binary", "--data-ascii", "--data-raw", "--data-urlencode", "--json", "-F", "--form", "--form-string",
	"-H", "--header", "-T", "--upload-file", "-K", "--config", "-o", "--output", "--output-dir", "-D", "--dump-header",
	"-c", "--cookie-jar", "-b", "--cookie", "-E", "--cert", "--key", "--cacert", "--capath", "-u", "--user", "-A", "--user-agent",
	"-e", "--referer", "-X", "--request", "-x", "--proxy", "-U", "--proxy-user", "-m", "--max-time", "--connect-timeout",
	"-w", "--write-out", "-r", "--range", "-C", "--continue-at", "--retry", "--retry-delay", "--resolve", "--connect-to", "--url",
	"-Y", "--speed-limit", "-y", "--speed-time", "--limit-rate", "--max-filesize", "-z", "--time-cond", "--stderr", "--trace",
	"--trace-ascii", "--netrc-file", "--unix-socket", "--interface", "--proto", "--max-redirs", "-Q", "--quote", "--etag-save",
	"--etag-compare", "--hsts", "--alt-svc", "-P", "--ftp-port", "--variable",
];
const WGET_VALUES = [
	"-O", "--output-document", "-o", "--output-file", "-a", "--append-output", "-P", "--directory-prefix", "-i", "--input-file",
	"-e", "--execute", "-U", "--user-agent", "--header", "-t", "--tries", "-T", "--timeout", "-w", "--wait", "-Q", "--quota",
	"-l", "--level", "-A", "--accept", "-R", "--reject", "-D", "--domains", "--post-data", "--post-file", "--body-data",
	"--body-file", "--method", "--user", "--password", "-B", "--base", "--bind-address", "--limit-rate", "--referer",
];
const GIT_GLOBAL_VALUES = ["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path"];
/** Options of `git config` that read, and the write actions of its old syntax. */
const GIT_CONFIG_READS = ["--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list", "--get-color", "--get-colorbool"];
const GIT_CONFIG_WRITES = ["--add", "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section", "-e", "--edit"];
const GIT_CONFIG_VERBS_WRITE = new Set(["set", "unset", "rename-section", "remove-section", "edit"]);
const GIT_CONFIG_VERBS_READ = new Set(["get", "list"]);

/**
 * `git config`: which file it writes. The repository's own `.git/config` is left to the
 * git-config knowledge of the protected paths; here the files beyond it: the user's and the
 * system's config and any `--file`.
 */
function gitConfig(s: ScannedWords): WriteTarget[] {
	const verb = s.operands[0];
	const newVerb = verb?.static ? verb.value : undefined;
	let writes: boolean;
	if (newVerb !== undefined && GIT_CONFIG_VERBS_WRITE.has(newVerb)) writes = true;
	else if (newVerb !== undefined && GIT_CONFIG_VERBS_READ.has(newVerb)) writes = false;
	else writes = has(s, ...GIT_CONFIG_WRITES) || (!has(s, ...GIT_CONFIG_READS) && s.operands.length >= 2);
	if (!writes) return [];
	const files = valuesOf(s, "-f", "--file");
	if (files.length > 0) return files.map((f) => target(f, "write", "git config --file"));
	if (has(s, "--global")) return [target(word("~/.gitconfig"), "write", "git config --global")];
	if (has(s, "--system")) return [target(word("/etc/gitconfig"), "write", "git config --system")];
	return [];
}

const GIT_SUB_VALUES: Record<string, readonly string[]> = {
	config: ["-f", "--file", "--blob", "--type", "--default", "--comment", "--value"],
	diff: ["--output", "-U", "--unified", "--stat", "-M", "-C", "--relative", "-O", "--word-diff"],
	log: ["--output", "-n", "--max-count", "--format", "--pretty", "--since", "--until", "--author", "--grep"],
	show: ["--output", "--format", "--pretty"],
	"format-patch": ["-o", "--output-directory", "--output", "-v", "--reroll-count", "--subject-prefix", "--base", "--to", "--cc"],
	archive: ["-o", "--output", "--format", "--prefix", "--remote"],
	clone: ["-b", "--branch", "-o", "--origin", "--depth", "--reference", "--separate-git-dir", "-c", "--config", "--template", "-u", "--upload-pack", "--filter"],
	worktree: ["-b", "-B", "--reason"],
	bundle: [],
};

/** The directory `git clone URL` creates when no directory is named: the URL's last segment, less `.git`. */
function cloneDir(url: ShellWord): ShellWord {
	if (!url.static) return unknown(`<directory named after ${url.value}>`);
	const name = url.value.replace(/\/+$/, "").replace(/\.git$/, "").replace(/^.*[/:]/, "");
	return word(name === "" ? url.value : name);
}

/** Each git sub-command's option row, made once so that its option sets are built once too. */
const GIT_SUB_RULES = new Map(Object.entries(GIT_SUB_VALUES).map(([sub, values]) => [sub, { values }]));

function git(s: ScannedWords, c: SimpleCommand): WriteTarget[] {
	const [sub, ...rest] = s.operands;
	if (!sub?.static || !Object.hasOwn(GIT_SUB_VALUES, sub.value)) return [];
	// The sub-command's own options, read past the global ones.
	const subIndex = c.args.indexOf(sub);
	const inner = scanWords(c.args.slice(subIndex + 1), GIT_SUB_RULES.get(sub.value)!);
	const cwd = valuesOf(s, "-C").at(-1);
	const at = (w: ShellWord): ShellWord => under(cwd, w);
	const out: WriteTarget[] = [];
	switch (sub.value) {
		case "config":
			for (const t of gitConfig(inner)) out.push(t.via === "git config --file" ? { ...t, path: at(t.path) } : t);
			return out;
		case "diff":
		case "log":
		case "show":
			return valuesOf(inner, "--output").map((p) => target(at(p), "write", `git ${sub.value} --output`));
		case "format-patch": {
			const dirs = valuesOf(inner, "-o", "--output-directory").map((p) => target(at(p), "create-dir", "git format-patch -o"));
			const files = valuesOf(inner, "--output").map((p) => target(at(p), "write", "git format-patch --output"));
			// Without either, the patches land in the current directory.
			return dirs.length + files.length > 0 ? [...dirs, ...files] : [target(at(unknown("<NNNN-subject>.patch")), "write", "git format-patch")];
		}
		case "archive":
			return valuesOf(inner, "-o", "--output").map((p) => target(at(p), "write", "git archive -o"));
		case "clone": {
			const [url, dir] = inner.operands;
			if (!url) return [];
			return [target(at(dir ?? cloneDir(url)), "create-dir", "git clone")];
		}
		case "worktree":
			return inner.operands[0]?.value === "add" && inner.operands[1] ? [target(at(inner.operands[1]), "create-dir", "git worktree add")] : [];
		case "bundle":
			return rest[0]?.value === "create" && rest[1] ? [target(at(rest[1]), "write", "git bundle create")] : [];
		default:
			return [];
	}
}

function curl(s: ScannedWords): WriteTarget[] {
	const dir = valuesOf(s, "--output-dir").at(-1);
	const out: WriteTarget[] = [];
	for (const f of valuesOf(s, "-o", "--output")) out.push(target(under(dir, f), "write", "curl -o"));
	if (has(s, "-O", "--remote-name", "--remote-name-all")) {
		const urls = [...s.operands, ...valuesOf(s, "--url")].filter(looksLikeUrl);
		for (const url of urls) {
			const name = urlFileName(url);
			if (name) out.push(target(under(dir, name), "write", "curl -O"));
		}
	}
	for (const f of valuesOf(s, "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii", "--stderr", "--etag-save")) {
		out.push(target(f, "write", "curl output file"));
	}
	return out;
}

function wget(s: ScannedWords): WriteTarget[] {
	if (has(s, "--spider")) return [];
	const out: WriteTarget[] = [];
	const dir = valuesOf(s, "-P", "--directory-prefix").at(-1);
	const documents = valuesOf(s, "-O", "--output-document");
	for (const f of documents) out.push(target(f, "write", "wget -O"));
	for (const f of valuesOf(s, "-o", "--output-file")) out.push(target(f, "write", "wget -o"));
	for (const f of valuesOf(s, "-a", "--append-output")) out.push(target(f, "append", "wget -a"));
	if (documents.length > 0) return out;
	if (has(s, "-r", "--recursive", "-m", "--mirror")) {
		out.push(target(under(dir, unknown("<host>/…")), "write", "wget -r"));
		return out;
	}
	for (const url of s.operands.filter(looksLikeUrl)) {
		out.push(target(under(dir, urlFileName(url) ?? word("index.html")), "write", "wget download"));
	}
	return out;
}

function tar(s: ScannedWords): WriteTarget[] {
	const dir = valuesOf(s, "-C", "--directory").at(-1);
	if (has(s, "-x", "--extract", "--get")) {
		// The members' names are in the archive: anything under the directory.
		return [target(under(dir ?? word("."), unknown("<archive members>")), "write", "tar -x")];
	}
	if (has(s, "-c", "--create", "-r", "--append", "-u", "--update")) {
		return valuesOf(s, "-f", "--file").map((f) => target(under(dir, f), "write", "tar -f"));
	}
	return [];
}

function unzip(s: ScannedWords): WriteTarget[] {
	if (has(s, "-l", "-t", "-p", "-v", "-Z", "-z")) return [];
	const dir = valuesOf(s, "-d").at(-1);
	return [target(under(dir ?? word("."), unknown("<archive members>")), "write", dir ? "unzip -d" : "unzip")];
}

function patch(s: ScannedWords): WriteTarget[] {
	if (has(s, "--dry-run", "-C", "--check")) return [];
	const dir = valuesOf(s, "-d", "--directory").at(-1);
	const out: WriteTarget[] = valuesOf(s, "-r", "--reject-file").map((f) => target(under(dir, f), "write", "patch -r"));
	const outputs = valuesOf(s, "-o", "--output");
	if (outputs.length > 0) return [...outputs.map((f) => target(under(dir, f), "write", "patch -o")), ...out];
	const original = s.operands[0];
	// Without a file named, patch writes the files the patch text names.
	out.unshift(target(under(dir, original ?? unknown("<files the patch names>")), "write", "patch"));
	return out;
}

/** `sed -i` / `perl -i`: in place on the file operands, after the script unless an option gave it. */
function inPlace(program: string, scriptOptions: readonly string[], inPlaceOptions: readonly string[]) {
	return (s: ScannedWords): WriteTarget[] => {
		if (!has(s, ...inPlaceOptions)) return [];
		const files = has(s, ...scriptOptions) ? s.operands : s.operands.slice(1);
		return files.map((f) => target(f, "write", `${program} -i`));
	};
}

function mv(s: ScannedWords): WriteTarget[] {
	const dest = destination(s, "mv");
	const movedToDir = valuesOf(s, "-t", "--target-directory").length > 0;
	const sources = movedToDir ? s.operands : s.operands.slice(0, -1);
	// A moved file is gone from where it was.
	return [...dest, ...(dest.length > 0 ? sources.map((o) => target(o, "delete", "mv source")) : [])];
}

function npm(s: ScannedWords): WriteTarget[] {
	const [sub, verb] = s.operands;
	const global = has(s, "-g", "--global") || valuesOf(s, "--location").some((l) => l.value === "global");
	if (sub?.value === "config" || sub?.value === "set") {
		const setting = sub.value === "set" || verb?.value === "set" || verb?.value === "delete" || verb?.value === "edit";
		if (!setting) return [];
		const userconfig = valuesOf(s, "--userconfig").at(-1);
		if (valuesOf(s, "--location").some((l) => l.value === "project")) return [target(word(".npmrc"), "write", "npm config set --location=project")];
		if (global) return [target(unknown("$(npm prefix -g)/etc/npmrc"), "write", "npm config set -g")];
		return [target(userconfig ?? word("~/.npmrc"), "write", "npm config set")];
	}
	if (global && sub?.static && ["install", "i", "add", "link", "ln", "update", "uninstall", "rm", "remove"].includes(sub.value)) {
		return [target(unknown("$(npm prefix -g)"), "write", `npm ${sub.value} -g`)];
	}
	return [];
}

function pip(s: ScannedWords): WriteTarget[] {
	if (s.operands[0]?.value !== "install") return [];
	const out: WriteTarget[] = [];
	if (has(s, "--user")) out.push(target(word("~/.local"), "write", "pip install --user"));
	for (const d of valuesOf(s, "-t", "--target")) out.push(target(d, "create-dir", "pip install --target"));
	for (const d of valuesOf(s, "--prefix", "--root")) out.push(target(d, "create-dir", "pip install --prefix"));
	return out;
}

const RSYNC_VALUES = ["-e", "--rsh", "--rsync-path", "-f", "--filter", "--exclude", "--include", "--exclude-from", "--include-from", "--files-from", "--log-file", "--password-file", "--port", "-T", "--temp-dir", "--backup-dir", "--compare-dest", "--link-dest", "--copy-dest", "-B", "--block-size", "--bwlimit", "--timeout", "--contimeout", "--chmod", "--chown", "-M", "--remote-option", "--out-format", "--info", "--debug", "--partial-dir", "--suffix", "--max-size", "--min-size", "--sockopts", "--iconv", "--address"];

/** rsync's last operand, when it is local: `host:path`, `host::module` and `rsync://` are another machine's. */
function rsync(s: ScannedWords): WriteTarget[] {
	const dest = s.operands.length >= 2 ? s.operands[s.operands.length - 1]! : undefined;
	if (dest === undefined || (dest.static && (/^[^/]*:/.test(dest.value) || /^rsync:\/\//i.test(dest.value)))) return [];
	return [target(dest, "write", "rsync destination")];
}

const PIP_VALUES = ["-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "-t", "--target", "--prefix", "--root", "--log", "--python"];

/**
 * One row per program. Each row is tested in write-targets.test.ts; a program not listed writes
 * nothing that its command line shows (its redirections aside).
 */
export const WRITE_TARGET_TABLE: Readonly<Record<string, WriteRule>> = {
	tee: {
		values: ["--output-error"],
		targets: (s) => s.operands.map((o) => target(o, has(s, "-a", "--append") ? "append" : "write", has(s, "-a", "--append") ? "tee -a" : "tee")),
	},
	cp: { values: CP_VALUES, targets: (s) => destination(s, "cp") },
	mv: { values: CP_VALUES, targets: mv },
	install: {
		values: [...CP_VALUES, "-m", "--mode", "-o", "--owner", "-g", "--group"],
		targets: (s) => (has(s, "-d", "--directory") ? allOperands("create-dir", "install -d")(s) : destination(s, "install")),
	},
	ln: {
		values: ["-t", "--target-directory", "-S", "--suffix", "--backup"],
		targets: (s) => {
			const dest = destination(s, "ln");
			if (dest.length > 0 || s.operands.length !== 1) return dest;
			// `ln -s /x/y` makes `y` here.
			const only = s.operands[0]!;
			return [target(only.static ? word(only.value.replace(/\/+$/, "").replace(/^.*\//, "")) : only, "write", "ln destination")];
		},
	},
	rsync: { values: RSYNC_VALUES, targets: rsync },
	dd: {
		noOptions: true,
		targets: (s) => s.operands.filter((o) => o.value.startsWith("of=")).map((o) => target({ ...o, value: o.value.slice(3) }, "write", "dd of=")),
	},
	sed: {
		values: ["-e", "--expression", "-f", "--file", "-l", "--line-length"],
		attached: ["-i"],
		targets: inPlace("sed", ["-e", "--expression", "-f", "--file"], ["-i", "--in-place"]),
	},
	perl: {
		values: ["-e", "-E", "-I", "-M", "-m", "-x"],
		attached: ["-i"],
		targets: inPlace("perl", ["-e", "-E"], ["-i"]),
	},
	sort: {
		values: ["-o", "--output", "-k", "--key", "-t", "--field-separator", "-S", "--buffer-size", "-T", "--temporary-directory", "--compress-program", "--files0-from", "--parallel", "--batch-size"],
		targets: (s) => valuesOf(s, "-o", "--output").map((f) => target(f, "write", "sort -o")),
	},
	git: { values: GIT_GLOBAL_VALUES, targets: git },
	touch: { values: ["-r", "--reference", "-d", "--date", "-t"], targets: allOperands("write", "touch") },
	mkdir: { values: ["-m", "--mode", "--context"], targets: allOperands("create-dir", "mkdir") },
	rm: { targets: allOperands("delete", "rm") },
	rmdir: { targets: allOperands("delete", "rmdir") },
	unlink: { targets: allOperands("delete", "unlink") },
	shred: {
		values: ["-n", "--iterations", "-s", "--size", "--random-source", "--remove"],
		targets: (s) => (has(s, "-u", "--remove") ? allOperands("delete", "shred -u")(s) : allOperands("write", "shred")(s)),
	},
	truncate: { values: ["-s", "--size", "-r", "--reference"], targets: allOperands("write", "truncate") },
	curl: { values: CURL_VALUES, targets: curl },
	wget: { values: WGET_VALUES, targets: wget },
	tar: {
		values: ["-f", "--file", "-C", "--directory", "-T", "--files-from", "-X", "--exclude-from", "-g", "--listed-incremental", "-b", "--blocking-factor", "-H", "--format", "-N", "--newer", "-V", "--label", "-I", "--use-compress-program", "--to-command", "--owner", "--group", "--mode", "--mtime", "--exclude", "--transform"],
		bundledFirst: true,
		targets: tar,
	},
	unzip: { values: ["-d", "-P"], targets: unzip },
	patch: {
		values: ["-o", "--output", "-i", "--input", "-d", "--directory", "-p", "--strip", "-r", "--reject-file", "-B", "--prefix", "-D", "--ifdef", "-F", "--fuzz", "-V", "--version-control", "-z", "--suffix", "-Y", "--basename-prefix", "-g", "--get"],
		targets: patch,
	},
	chmod: { values: ["--reference"], targets: afterSpec("chmod", /^-[rwxXst]+$/) },
	chown: { values: ["--reference", "--from"], targets: afterSpec("chown") },
	chgrp: { values: ["--reference"], targets: afterSpec("chgrp") },
	split: {
		values: ["-a", "--suffix-length", "-b", "--bytes", "-C", "--line-bytes", "-l", "--lines", "-n", "--number", "-t", "--separator", "--additional-suffix", "--filter"],
		// `split [INPUT [PREFIX]]`: the pieces are PREFIXaa, PREFIXab … (prefix `x` by default).
		targets: (s) => [target(s.operands[1] ?? word("x"), "write", "split prefix")],
	},
	uniq: {
		values: ["-f", "--skip-fields", "-s", "--skip-chars", "-w", "--check-chars"],
		targets: (s) => (s.operands[1] ? [target(s.operands[1], "write", "uniq output")] : []),
	},
	mkfifo: { values: ["-m", "--mode", "--context"], targets: allOperands("write", "mkfifo") },
	npm: { values: ["--prefix", "-w", "--workspace", "--location", "--userconfig", "--globalconfig"], targets: npm },
	pip: { values: PIP_VALUES, targets: pip },
	pip3: { values: PIP_VALUES, targets: pip },
};
