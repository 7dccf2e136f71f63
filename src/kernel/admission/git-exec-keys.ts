/**
 * git config keys whose value is a program git runs on its own, or a file or setting that makes it
 * run one: setting one in the user's global config is persistence in every repository. Matched
 * without case (git's section and key names are case-insensitive); subsections as `*`. One test per
 * row in git-exec-keys.test.ts.
 */
export const GIT_EXEC_KEYS: readonly string[] = [
	"core.hooksPath",
	"core.fsmonitor",
	"core.sshCommand",
	"core.pager",
	"core.editor",
	"core.askPass",
	"core.gitProxy",
	"core.attributesFile",
	"alias.*",
	"filter.*.clean",
	"filter.*.smudge",
	"filter.*.process",
	"diff.external",
	"diff.*.textconv",
	"diff.*.command",
	"merge.*.driver",
	"include.path",
	"includeIf.*.path",
	"credential.helper",
	"credential.*.helper",
	"gpg.program",
	"gpg.*.program",
	"sequence.editor",
	"pager.*",
	"interactive.diffFilter",
	"init.templateDir",
	"protocol.*.allow",
	"uploadpack.packObjectsHook",
	"sendemail.sendmailCmd",
	"sendemail.smtpServer",
	"url.*.insteadOf",
];

/**
 * The row a config key meets (`alias.st`, `filter.lfs.smudge`, `includeIf.gitdir:~/w/.path`), or
 * undefined for an ordinary setting. The section is before the first dot, the name after the last;
 * whatever lies between is the subsection, dots and all.
 */
export function gitExecKey(key: string): string | undefined {
	const parts = key.split(".");
	if (parts.length < 2) return undefined;
	const section = parts[0]!.toLowerCase();
	const name = parts[parts.length - 1]!.toLowerCase();
	const hasSub = parts.length > 2;
	for (const row of GIT_EXEC_KEYS) {
		const r = row.split(".");
		const rSection = r[0]!.toLowerCase();
		const rName = r[r.length - 1]!.toLowerCase();
		if (rSection !== section) continue;
		if (r.length === 2 && rName === "*") return row;
		if (r.length === 2 && !hasSub && rName === name) return row;
		if (r.length === 3 && hasSub && rName === name) return row;
	}
	return undefined;
}
