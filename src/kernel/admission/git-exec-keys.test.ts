import { describe, expect, it } from "vitest";
import { GIT_EXEC_KEYS, gitExecKey } from "./git-exec-keys.js";

/** A key per row, spelled as users do (case and subsections vary). */
const CASES: Record<string, string> = {
	"core.hooksPath": "core.hookspath",
	"core.fsmonitor": "core.fsmonitor",
	"core.sshCommand": "core.sshCommand",
	"core.pager": "core.pager",
	"core.editor": "core.editor",
	"core.askPass": "core.askpass",
	"core.gitProxy": "core.gitProxy",
	"core.attributesFile": "core.attributesfile",
	"alias.*": "alias.st",
	"filter.*.clean": "filter.lfs.clean",
	"filter.*.smudge": "filter.x.smudge",
	"filter.*.process": "filter.x.process",
	"diff.external": "diff.external",
	"diff.*.textconv": "diff.pdf.textconv",
	"diff.*.command": "diff.x.command",
	"merge.*.driver": "merge.ours.driver",
	"include.path": "include.path",
	"includeIf.*.path": "includeIf.gitdir:~/work/.path",
	"credential.helper": "credential.helper",
	"credential.*.helper": "credential.https://example.com.helper",
	"gpg.program": "gpg.program",
	"gpg.*.program": "gpg.ssh.program",
	"sequence.editor": "sequence.editor",
	"pager.*": "pager.log",
	"interactive.diffFilter": "interactive.difffilter",
	"init.templateDir": "init.templatedir",
	"protocol.*.allow": "protocol.ext.allow",
	"uploadpack.packObjectsHook": "uploadpack.packobjectshook",
	"sendemail.sendmailCmd": "sendemail.sendmailcmd",
	"sendemail.smtpServer": "sendemail.smtpserver",
	"url.*.insteadOf": "url.ext::sh -c x.insteadOf",
};

describe("git config keys that run programs", () => {
	it("has a case for every row", () => {
		expect(Object.keys(CASES).sort()).toEqual([...GIT_EXEC_KEYS].sort());
	});

	it.each(Object.entries(CASES))("%s covers %s", (row, key) => {
		expect(gitExecKey(key)).toBe(row);
	});

	it.each([["user.name"], ["user.email"], ["core.autocrlf"], ["init.defaultBranch"], ["color.ui"], ["core"], ["filter.lfs.required"]])("%s is ordinary", (key) => {
		expect(gitExecKey(key)).toBeUndefined();
	});
});
