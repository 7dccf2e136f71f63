/** Where Warden keeps its database and other state, following the XDG base-directory convention. */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

/**
 * The state directory, as an absolute path: the explicit flag, else WARDEN_HOME, else
 * $XDG_STATE_HOME/warden, else ~/.local/state/warden. Empty values count as unset.
 */
export function resolveStateDir(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
	const home = nonEmpty(env.HOME) ?? homedir();
	const chosen = nonEmpty(explicit) ?? nonEmpty(env.WARDEN_HOME);
	if (chosen) return resolve(expandHome(chosen, home));
	const xdg = nonEmpty(env.XDG_STATE_HOME);
	// The XDG spec says relative values are invalid and must be ignored.
	if (xdg && isAbsolute(xdg)) return resolve(xdg, "warden");
	return join(resolve(home), ".local", "state", "warden");
}

function nonEmpty(value: string | undefined): string | undefined {
	return value && value.trim() !== "" ? value : undefined;
}

/** A leading "~" arrives unexpanded from config files and quoted flags. */
function expandHome(path: string, home: string): string {
	if (path === "~") return home;
	if (path.startsWith("~/")) return join(home, path.slice(2));
	return path;
}
