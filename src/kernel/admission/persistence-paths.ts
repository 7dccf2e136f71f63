/**
 * Files outside the workspace that something runs later without asking: the user's shell reads its
 * rc and profile files at every login, git runs what its global config names, the session manager
 * starts autostart entries and user units, cron and launchd run their jobs, Warden obeys its user
 * config. A write there outlives the session and runs outside every sandbox, so even full-access,
 * which otherwise lets a command write where the user can, asks first.
 *
 * Patterns are globs (picomatch, dotfiles match) over the home-relative path (`home:` rows) or the
 * absolute path (`/` rows). One test per row in persistence-paths.test.ts.
 */
import { posix } from "node:path";
import picomatch from "picomatch";

export interface PersistencePath {
	pattern: string;
	/** What runs it, and when: shown in the decision's reason. */
	reason: string;
}

const SHELL_STARTUP = "a shell startup file: the user's shell runs it at the next login or new terminal";

export const PERSISTENCE_PATHS: readonly PersistencePath[] = [
	{ pattern: "home:.{bashrc,bash_profile,bash_login,bash_logout,profile,zshrc,zshenv,zprofile,zlogin,zlogout,kshrc,mkshrc,cshrc,tcshrc,login}", reason: SHELL_STARTUP },
	{ pattern: "home:.config/fish/**", reason: SHELL_STARTUP },
	{ pattern: "home:.config/environment.d/**", reason: "the user's session environment: read by every program the session starts" },
	{ pattern: "home:.{pam_environment,xprofile,xinitrc,xsession,xsessionrc}", reason: "a session startup file: run or read when the user next logs in" },
	{ pattern: "home:.gitconfig", reason: "git's global config: it can name programs git runs in every repository (hooksPath, pager, aliases, filters)" },
	{ pattern: "home:.config/git/**", reason: "git's global config: it can name programs git runs in every repository (hooksPath, pager, aliases, filters)" },
	{ pattern: "home:.config/autostart/**", reason: "an autostart entry: the desktop session runs it at the next login" },
	{ pattern: "home:.config/systemd/user/**", reason: "a systemd user unit: systemd runs it outside the workspace" },
	{ pattern: "home:.local/share/systemd/user/**", reason: "a systemd user unit: systemd runs it outside the workspace" },
	{ pattern: "home:Library/LaunchAgents/**", reason: "a launchd agent: launchd runs it at the next login" },
	{ pattern: "home:.local/bin/**", reason: "a program on the user's PATH: it runs in place of the one the user means" },
	{ pattern: "home:bin/**", reason: "a program on the user's PATH: it runs in place of the one the user means" },
	{ pattern: "home:.{npmrc,yarnrc,yarnrc.yml}", reason: "a package manager's user config: it can name the shell and node options every install runs with" },
	{ pattern: "home:.{vimrc,exrc,tmux.conf,emacs}", reason: "an editor or terminal startup file: it runs commands when the program starts" },
	{ pattern: "home:.{config/nvim,vim,emacs.d}/**", reason: "an editor startup file: it runs commands when the program starts" },
	{ pattern: "home:.{warden,config/warden}/**", reason: "Warden's user config: every later session obeys it (mode, rules, grants)" },
	{ pattern: "home:.{claude,gemini,codex}/**", reason: "another agent's user settings: their hooks and servers run commands" },
	{ pattern: "home:.direnvrc", reason: "direnv's user config: direnv runs it whenever it loads a directory" },
	{ pattern: "/etc/{profile,bash.bashrc,zshenv,zshrc,environment,rc.local,ld.so.preload}", reason: "a system startup file: run for every user at login or for every program" },
	{ pattern: "/etc/{profile.d,cron.d,cron.daily,cron.hourly,cron.weekly,cron.monthly,systemd,init.d,sudoers.d}/**", reason: "system startup or scheduling config: run later by the system" },
	{ pattern: "/etc/{crontab,sudoers,gitconfig}", reason: "system config that names programs run later" },
	{ pattern: "/var/spool/cron/**", reason: "a crontab: cron runs its jobs later" },
	{ pattern: "home:.agents/skills/**", reason: "the user's Agent Skills for other agents: a later session offers their instructions to the model and runs their scripts" },
];

interface Compiled {
	row: PersistencePath;
	test: (path: string) => boolean;
	home: boolean;
}

const COMPILED: readonly Compiled[] = PERSISTENCE_PATHS.map((row) => {
	const home = row.pattern.startsWith("home:");
	const glob = home ? row.pattern.slice("home:".length) : row.pattern;
	return { row, home, test: picomatch(glob, { dot: true }) };
});

/**
 * The row an absolute path meets, or undefined. A directory that holds such files counts too
 * (`rm -rf ~/.config/systemd` or `cp -r x ~/.config/autostart`).
 */
export function persistencePath(absolute: string, home: string): PersistencePath | undefined {
	const underHome = absolute === home || absolute.startsWith(`${home.replace(/\/+$/, "")}/`);
	const rel = underHome ? posix.relative(home, absolute) : undefined;
	for (const c of COMPILED) {
		const subject = c.home ? rel : absolute;
		if (subject === undefined || subject === "") continue;
		if (c.test(subject) || c.test(`${subject}/x`)) return c.row;
	}
	return undefined;
}
