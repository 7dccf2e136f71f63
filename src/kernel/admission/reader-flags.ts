/**
 * Options that make a reading program run another program or write a file, one row per option.
 * A reader given any of them is no longer read-only. Long options also match when abbreviated
 * (`sort --compress` is `--compress-program`): GNU getopt and git accept any unambiguous prefix.
 */

export interface UnsafeFlag {
	program: string;
	/** The option as spelled, short (`-o`) or long (`--output`). */
	flag: string;
	why: string;
	/** git only: the option is unsafe only for this subcommand (`grep -O`), or only before the subcommand (`global`). */
	scope?: string;
	/** A command using the option, for the row's test. */
	example: string;
}

const RUNS_PAGER = "runs a pager program";
const WRITES = "writes its output to a file";

export const UNSAFE_FLAGS: readonly UnsafeFlag[] = [
	{ program: "rg", flag: "--pre", why: "runs a preprocessor program on every file it searches", example: "rg --pre ./x pattern" },
	{ program: "rg", flag: "--pre-glob", why: "chooses the files a preprocessor program runs on", example: "rg --pre-glob '*.txt' pattern" },
	{ program: "rg", flag: "-z", why: "runs decompression programs on compressed files", example: "rg -z pattern archive.gz" },
	{ program: "rg", flag: "--search-zip", why: "runs decompression programs on compressed files", example: "rg --search-zip pattern" },
	{ program: "rg", flag: "--hostname-bin", why: "runs a program to learn the host name", example: "rg --hostname-bin=./x pattern" },
	{ program: "git", flag: "-c", why: "sets configuration that can name programs git runs (pager, diff drivers, fsmonitor)", scope: "global", example: "git -c core.pager=./x log" },
	{ program: "git", flag: "--config-env", why: "sets configuration from the environment that can name programs git runs", scope: "global", example: "git --config-env=diff.external=HELPER diff" },
	{ program: "git", flag: "--exec-path", why: "chooses the directory git runs its sub-programs from", scope: "global", example: "git --exec-path=./bin status" },
	{ program: "git", flag: "-C", why: "runs in another directory, whose repository configuration may name programs", scope: "global", example: "git -C sub status" },
	{ program: "git", flag: "--git-dir", why: "takes its repository, and the configuration naming programs, from elsewhere", scope: "global", example: "git --git-dir=other log" },
	{ program: "git", flag: "--work-tree", why: "takes its work tree from elsewhere", scope: "global", example: "git --work-tree=other status" },
	{ program: "git", flag: "-p", why: RUNS_PAGER, scope: "global", example: "git -p log" },
	{ program: "git", flag: "--paginate", why: RUNS_PAGER, scope: "global", example: "git --paginate log" },
	{ program: "git", flag: "--help", why: "opens the manual through a pager or a web browser", example: "git status --help" },
	{ program: "git", flag: "--output", why: WRITES, example: "git log --output=log.out" },
	{ program: "git", flag: "--ext-diff", why: "runs an external diff program", example: "git diff --ext-diff" },
	{ program: "git", flag: "--textconv", why: "runs text conversion filters", example: "git show --textconv HEAD:file" },
	{ program: "git", flag: "--filters", why: "runs the repository's content filters", example: "git cat-file --filters HEAD:file" },
	{ program: "git", flag: "--show-signature", why: "runs gpg to verify signatures", example: "git log --show-signature -1" },
	{ program: "git", flag: "-O", why: "opens the matches in a pager program", scope: "grep", example: "git grep -Ovim needle" },
	{ program: "git", flag: "--open-files-in-pager", why: "opens the matches in a pager program", scope: "grep", example: "git grep --open-files-in-pager=less needle" },
	{ program: "sort", flag: "-o", why: WRITES, example: "sort -o out.txt notes.md" },
	{ program: "sort", flag: "--output", why: WRITES, example: "sort --out=out.txt notes.md" },
	{ program: "sort", flag: "--compress-program", why: "runs a program to compress its temporary files", example: "sort --compress-program=./x notes.md" },
	{ program: "sort", flag: "-T", why: "writes temporary files into the directory it names", example: "sort -T tmpdir notes.md" },
	{ program: "sort", flag: "--temporary-directory", why: "writes temporary files into the directory it names", example: "sort --temporary-directory=tmpdir notes.md" },
	{ program: "tree", flag: "-o", why: WRITES, example: "tree -Cofile ." },
	{ program: "tree", flag: "--output", why: WRITES, example: "tree --output=tree.txt" },
	{ program: "tree", flag: "-R", why: "writes an output file into every directory", example: "tree -R -H . ." },
	{ program: "base64", flag: "-o", why: WRITES, example: "base64 -o out.bin notes.md" },
	{ program: "base64", flag: "--output", why: WRITES, example: "base64 --output=out.bin notes.md" },
	{ program: "sed", flag: "-i", why: "edits its files in place", example: "sed -i 's/a/b/' notes.md" },
	{ program: "sed", flag: "-I", why: "edits its files in place", example: "sed -I.bak 's/a/b/' notes.md" },
	{ program: "sed", flag: "--in-place", why: "edits its files in place", example: "sed --in-pl=.bak 's/a/b/' notes.md" },
	{ program: "sed", flag: "-f", why: "runs a script from a file, which this check cannot read", example: "sed -f script.sed notes.md" },
	{ program: "sed", flag: "--file", why: "runs a script from a file, which this check cannot read", example: "sed --f script.sed notes.md" },
	{ program: "awk", flag: "-f", why: "runs a program from a file, which this check cannot read", example: "awk -fscript.awk notes.md" },
	{ program: "awk", flag: "--file", why: "runs a program from a file, which this check cannot read", example: "awk --file=script.awk notes.md" },
	{ program: "awk", flag: "-e", why: "adds program text this check does not read", example: "awk -e '{ print }' notes.md" },
	{ program: "awk", flag: "--source", why: "adds program text this check does not read", example: "awk --source='{ print }' notes.md" },
	{ program: "awk", flag: "-i", why: "includes a program file", example: "awk -i lib.awk '{ print }' notes.md" },
	{ program: "awk", flag: "--include", why: "includes a program file", example: "awk --include=lib.awk '{ print }' notes.md" },
	{ program: "awk", flag: "-l", why: "loads a compiled extension", example: "awk -l ext '{ print }' notes.md" },
	{ program: "awk", flag: "--load", why: "loads a compiled extension", example: "awk --load ext '{ print }' notes.md" },
	{ program: "awk", flag: "-E", why: "runs a program from a file", example: "awk -E script.awk notes.md" },
	{ program: "awk", flag: "--exec", why: "runs a program from a file", example: "awk --exec=script.awk notes.md" },
	{ program: "awk", flag: "-W", why: "passes an implementation option (mawk's -W exec runs a file)", example: "awk -W exec=script.awk notes.md" },
	{ program: "awk", flag: "-o", why: "writes a pretty-printed program to a file", example: "awk -o '{ print }' notes.md" },
	{ program: "awk", flag: "--pretty-print", why: "writes a pretty-printed program to a file", example: "awk --pretty-print '{ print }' notes.md" },
	{ program: "awk", flag: "-p", why: "writes a profile to a file", example: "awk -p '{ print }' notes.md" },
	{ program: "awk", flag: "--profile", why: "writes a profile to a file", example: "awk --profile=report '{ print }' notes.md" },
	{ program: "awk", flag: "-d", why: "writes its variables to a file", example: "awk -d '{ print }' notes.md" },
	{ program: "awk", flag: "--dump-variables", why: "writes its variables to a file", example: "awk --dump-variables '{ print }' notes.md" },
	{ program: "awk", flag: "-D", why: "starts an interactive debugger", example: "awk -D '{ print }' notes.md" },
	{ program: "awk", flag: "--debug", why: "starts an interactive debugger", example: "awk --debug '{ print }' notes.md" },
	{ program: "tar", flag: "--to-command", why: "runs a program for every member", example: "tar -t --to-command=./x -f a.tar" },
	{ program: "tar", flag: "--use-compress-program", why: "runs a compression program", example: "tar -t --use-compress-program=./x -f a.tar" },
	{ program: "tar", flag: "-I", why: "runs a compression program", example: "tar -t -I ./x -f a.tar" },
	{ program: "tar", flag: "--checkpoint-action", why: "runs an action, possibly a program, at checkpoints", example: "tar -t --checkpoint=1 --checkpoint-action=exec=./x -f a.tar" },
	{ program: "tar", flag: "-F", why: "runs a script at the end of each volume", example: "tar -t -F ./x -f a.tar" },
	{ program: "tar", flag: "--info-script", why: "runs a script at the end of each volume", example: "tar -t --info-script=./x -f a.tar" },
	{ program: "tar", flag: "--new-volume-script", why: "runs a script at the end of each volume", example: "tar -t --new-volume-script=./x -f a.tar" },
	{ program: "tar", flag: "--rsh-command", why: "runs a remote shell program", example: "tar -t --rsh-command=./x -f host:a.tar" },
	{ program: "tar", flag: "--rmt-command", why: "runs a remote tape program", example: "tar -t --rmt-command=./x -f a.tar" },
	{ program: "tar", flag: "-x", why: "extracts, writing files", example: "tar -x -f a.tar" },
	{ program: "tar", flag: "--extract", why: "extracts, writing files", example: "tar --extract -f a.tar" },
	{ program: "tar", flag: "-c", why: "creates an archive, writing a file", example: "tar -c -f a.tar notes.md" },
	{ program: "tar", flag: "--create", why: "creates an archive, writing a file", example: "tar --create -f a.tar notes.md" },
	{ program: "tar", flag: "-r", why: "appends to an archive", example: "tar -r -f a.tar notes.md" },
	{ program: "tar", flag: "-u", why: "updates an archive", example: "tar -u -f a.tar notes.md" },
	{ program: "tar", flag: "-A", why: "appends archives to an archive", example: "tar -A -f a.tar b.tar" },
	{ program: "tar", flag: "--delete", why: "deletes from an archive", example: "tar --delete -f a.tar notes.md" },
	{ program: "printf", flag: "-v", why: "assigns to a shell variable (PATH, or an array element whose subscript bash evaluates)", example: "printf -v PATH /tmp" },
	{ program: "date", flag: "-s", why: "sets the system clock", example: "date -s 2020-01-01" },
	{ program: "date", flag: "--set", why: "sets the system clock", example: "date --set=2020-01-01" },
	{ program: "hostname", flag: "-F", why: "sets the host name from a file", example: "hostname -F name.txt" },
	{ program: "hostname", flag: "--file", why: "sets the host name from a file", example: "hostname --file=name.txt" },
	{ program: "file", flag: "-C", why: "compiles a magic file, writing it", example: "file -C -m magic" },
	{ program: "file", flag: "--compile", why: "compiles a magic file, writing it", example: "file --compile -m magic" },
];

/** `find` primaries (single-dash words anywhere in its expression) that run programs, delete or write. */
export const UNSAFE_FIND_PRIMARIES: readonly { primary: string; why: string }[] = [
	{ primary: "-exec", why: "runs a program for every match" },
	{ primary: "-execdir", why: "runs a program for every match" },
	{ primary: "-ok", why: "runs a program for every match" },
	{ primary: "-okdir", why: "runs a program for every match" },
	{ primary: "-delete", why: "deletes what it matches" },
	{ primary: "-fprint", why: "writes the names it finds to a file" },
	{ primary: "-fprint0", why: "writes the names it finds to a file" },
	{ primary: "-fprintf", why: "writes the names it finds to a file" },
	{ primary: "-fls", why: "writes the names it finds to a file" },
];

/** git: a long option written as a prefix of an unsafe one, that is itself a real option of its own. */
const EXACT_LONG_OPTIONS: Readonly<Record<string, ReadonlySet<string>>> = {
	git: new Set(["--text", "--no-ext-diff", "--no-textconv", "--output-directory", "--exit-code"]),
};

/** Options written abbreviated match too: `--out` is `--output`, `--f` may be `--file`. */
function names(written: string, flag: string, program: string): boolean {
	if (written === flag) return true;
	if (!flag.startsWith("--") || !written.startsWith("--") || written.length < 3) return false;
	return flag.startsWith(written) && !(Object.hasOwn(EXACT_LONG_OPTIONS, program) && EXACT_LONG_OPTIONS[program]!.has(written));
}

/** The option name of a normalized flag: `-o out.txt` → `-o`, `--pre=./x` → `--pre`. */
export function flagName(flag: string): string {
	const cut = flag.search(/[ =]/);
	return cut === -1 ? flag : flag.slice(0, cut);
}

const BY_PROGRAM = new Map<string, UnsafeFlag[]>();
for (const row of UNSAFE_FLAGS) BY_PROGRAM.set(row.program, [...(BY_PROGRAM.get(row.program) ?? []), row]);

/**
 * The first row matching one of `flags` (normalized), for a program; `scope` is git's subcommand or
 * `global` for the options before it. Rows without a scope apply everywhere.
 */
export function unsafeFlag(program: string, flags: readonly string[], scope?: string): UnsafeFlag | undefined {
	const rows = BY_PROGRAM.get(program) ?? [];
	for (const f of flags) {
		const name = flagName(f);
		const row = rows.find((r) => (r.scope === undefined || r.scope === scope) && names(name, r.flag, program));
		if (row) return row;
	}
	return undefined;
}
