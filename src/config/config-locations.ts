/** Where the user and project config files live. */
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

export interface ConfigLocation {
	path: string;
	/** A file the user named must exist; the default location may have none. */
	required: boolean;
}

/** `$WARDEN_CONFIG`, else `<config home>/warden/config.yaml` ($XDG_CONFIG_HOME, else ~/.config). */
export function userConfigLocation(env: NodeJS.ProcessEnv): ConfigLocation {
	if (env.WARDEN_CONFIG) return { path: env.WARDEN_CONFIG, required: true };
	// The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
	const xdg = env.XDG_CONFIG_HOME;
	const configHome = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), ".config");
	return { path: join(configHome, "warden", "config.yaml"), required: false };
}

/** `<workspace>/.warden/config.yaml`, in the workspace's real directory. */
export function projectConfigPath(workspace: string): string {
	return join(workspace, ".warden", "config.yaml");
}
