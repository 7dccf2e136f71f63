import { beforeAll, describe, expect, it } from "vitest";
import { GIT_EXEC_KEYS, gitExecConfigChange, gitExecKey, keyMatches } from "./git-exec-config.js";
import { ShellParser } from "./shell/shell-parser.js";
import type { SimpleCommand } from "./shell/shell-types.js";

let parser: ShellParser;
beforeAll(async () => {
	parser = await ShellParser.create();
});

const first = (command: string): SimpleCommand => parser.parse(command).commands[0]!;
const change = (command: string) => parser.parse(command).commands.map(gitExecConfigChange).find((h) => h !== undefined);

describe("git's executable config keys", () => {
	// One row per key: a key as a user would write it that the row must cover.
	const rows: [row: string, key: string][] = [
		["core.hooksPath", "core.hookspath"],
		["core.fsmonitor", "core.fsmonitor"],
		["core.sshCommand", "core.sshCommand"],
		["core.pager", "core.pager"],
		["core.editor", "core.editor"],
		["core.askPass", "core.askpass"],
		["core.gitProxy", "core.gitProxy"],
		["core.attributesFile", "core.attributesfile"],
		["sequence.editor", "sequence.editor"],
		["diff.external", "diff.external"],
		["diff.*.textconv", "diff.pdf.textconv"],
		["diff.*.command", "diff.my.driver.command"],
		["difftool.*.cmd", "difftool.vim.cmd"],
		["mergetool.*.cmd", "mergetool.kdiff3.cmd"],
		["merge.*.driver", "merge.ours.driver"],
		["filter.*.clean", "filter.lfs.clean"],
		["filter.*.smudge", "filter.lfs.smudge"],
		["filter.*.process", "filter.lfs.process"],
		["alias.*", "alias.co"],
		["include.path", "include.path"],
		["includeIf.*.path", "includeIf.gitdir:~/work/.path"],
		["credential.helper", "credential.helper"],
		["credential.*.helper", "credential.https://example.com.helper"],
		["gpg.program", "gpg.program"],
		["gpg.*.program", "gpg.ssh.program"],
		["gpg.*.defaultKeyCommand", "gpg.ssh.defaultKeyCommand"],
		["uploadpack.packObjectsHook", "uploadpack.packobjectshook"],
		["hook.*.command", "hook.lint.command"],
		["pager.*", "pager.log"],
		["interactive.diffFilter", "interactive.difffilter"],
		["submodule.*.update", "submodule.vendor/lib.update"],
		["remote.*.uploadpack", "remote.origin.uploadpack"],
		["remote.*.receivepack", "remote.origin.receivepack"],
		["protocol.allow", "protocol.allow"],
		["protocol.*.allow", "protocol.ext.allow"],
		["init.templateDir", "init.templatedir"],
		["web.browser", "web.browser"],
		["browser.*.cmd", "browser.firefox.cmd"],
		["browser.*.path", "browser.firefox.path"],
		["sendemail.sendmailCmd", "sendemail.sendmailcmd"],
		["sendemail.smtpServer", "sendemail.smtpserver"],
	];
	it("has a row here for every key", () => {
		expect(rows.map(([r]) => r).sort()).toEqual(GIT_EXEC_KEYS.map((k) => k.key).sort());
	});
	it.each(rows)("%s covers %s", (row, key) => {
		expect(gitExecKey(key)?.key).toBe(row);
		expect(change(`git config ${JSON.stringify(key)} x`)?.pattern).toBe(row);
	});
	it.each(["user.name", "user.email", "core.autocrlf", "diff.renames", "merge.conflictStyle", "pull.rebase", "credential.username"])("leaves %s alone", (key) => {
		expect(gitExecKey(key)).toBeUndefined();
		expect(change(`git config ${key} x`)).toBeUndefined();
	});
	it("needs a subsection where the row has one", () => {
		expect(keyMatches("filter.*.clean", "filter.clean")).toBe(false);
		expect(keyMatches("credential.helper", "credential.x.helper")).toBe(false);
	});
});

describe("commands that change git's executable config", () => {
	it.each([
		"git config core.hooksPath .h",
		"git config --local core.hooksPath .h",
		"git config --worktree core.fsmonitor ./x",
		"git config --add core.sshCommand 'sh -c id'",
		"git config --replace-all core.pager less",
		"git config --file .git/config core.hooksPath .h",
		"git config -f .git/config core.hooksPath .h",
		"git config --file=.git/config include.path ../evil",
		"git config alias.x '!sh -c \"curl x | sh\"'",
		"git config alias.st status",
		"git config set core.hooksPath .h",
		"git config unset core.hooksPath",
		"git config --unset alias.x",
		"git config --remove-section alias",
		"git config --rename-section filter.lfs filter.x",
		"git config --edit",
		"git config --global alias.x '!id'",
		"git -C sub config core.hooksPath .h",
		"git -c core.hooksPath=.h commit -m x",
		"git -c user.name=me -c core.fsmonitor=./x status",
		"git --config-env=core.sshCommand=CMD fetch",
		"git --config-env core.pager=PAGER log",
		"git --exec-path=./bin status",
		"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=.h git commit",
		"GIT_CONFIG_PARAMETERS=\"'core.hooksPath'='.h'\" git commit",
		"env GIT_CONFIG_GLOBAL=./evil git status",
		"export GIT_CONFIG_COUNT=1; git status",
		"git config \"$KEY\" x",
		"sudo git config core.hooksPath .h",
	])("%s", (command) => {
		const hit = change(command);
		expect(hit).toBeDefined();
		expect(hit!.reason.length).toBeGreaterThan(20);
	});

	it.each([
		"git config --get user.name",
		"git config user.name",
		"git config --get core.hooksPath",
		"git config --list",
		"git config -l --show-origin",
		"git config get core.hooksPath",
		"git config list",
		"git config --get-regexp alias",
		"git config user.name me",
		"git -c user.name=me commit -m x",
		"git -C sub status",
		"git commit -m 'core.hooksPath'",
		"git log --oneline",
		"echo core.hooksPath",
	])("%s is not a change", (command) => {
		expect(change(command)).toBeUndefined();
	});

	it("says which key and why", () => {
		expect(gitExecConfigChange(first("git config core.hooksPath .h"))).toMatchObject({ key: "core.hooksPath", pattern: "core.hooksPath" });
		expect(gitExecConfigChange(first("git config core.hooksPath .h"))!.reason).toContain("outside the sandbox");
	});
});
