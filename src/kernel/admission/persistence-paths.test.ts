import { describe, expect, it } from "vitest";
import { PERSISTENCE_PATHS, persistencePath } from "./persistence-paths.js";

const HOME = "/home/user";

/** One path per row, in the table's order, and the row it must meet. */
const CASES: [path: string, row: number][] = [
	[`${HOME}/.bashrc`, 0],
	[`${HOME}/.config/fish/config.fish`, 1],
	[`${HOME}/.config/environment.d/10-path.conf`, 2],
	[`${HOME}/.xprofile`, 3],
	[`${HOME}/.gitconfig`, 4],
	[`${HOME}/.config/git/config`, 5],
	[`${HOME}/.config/autostart/x.desktop`, 6],
	[`${HOME}/.config/systemd/user/x.service`, 7],
	[`${HOME}/.local/share/systemd/user/x.timer`, 8],
	[`${HOME}/Library/LaunchAgents/x.plist`, 9],
	[`${HOME}/.local/bin/git`, 10],
	[`${HOME}/bin/ls`, 11],
	[`${HOME}/.npmrc`, 12],
	[`${HOME}/.vimrc`, 13],
	[`${HOME}/.config/nvim/init.lua`, 14],
	[`${HOME}/.warden/config.yaml`, 15],
	[`${HOME}/.claude/settings.json`, 16],
	[`${HOME}/.direnvrc`, 17],
	["/etc/profile", 18],
	["/etc/profile.d/x.sh", 19],
	["/etc/crontab", 20],
	["/var/spool/cron/crontabs/user", 21],
	[`${HOME}/.agents/skills/deploy/SKILL.md`, 22],
	// Warden's user skills dir sits beside its user config: the same row.
	[`${HOME}/.config/warden/skills/deploy/SKILL.md`, 15],
];

describe("persistence paths", () => {
	it("has a case for every row", () => {
		expect(new Set(CASES.map(([, row]) => row)).size).toBe(PERSISTENCE_PATHS.length);
	});

	it.each(CASES)("%s", (path, row) => {
		expect(persistencePath(path, HOME)).toBe(PERSISTENCE_PATHS[row]);
	});

	it("covers a directory that holds such files", () => {
		expect(persistencePath(`${HOME}/.config/systemd/user`, HOME)).toBe(PERSISTENCE_PATHS[7]);
	});

	it.each([[`${HOME}/notes.txt`], [`${HOME}/.cache/x`], ["/tmp/x"], [`${HOME}/.bashrc.d.bak/x`], ["/etc/hosts"]])("%s is ordinary", (path) => {
		expect(persistencePath(path, HOME)).toBeUndefined();
	});
});
