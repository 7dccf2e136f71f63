/**
 * The user config's protected paths, for commands that act without a session's resolved config
 * (`warden undo`): the registry is the defaults plus these, as a session would have it, minus a
 * project's additions (undo works across workspaces, and a project can only add).
 */
import { ProtectedPaths } from "../kernel/protected/protected-paths.js";
import { readConfigFile } from "./config-file.js";
import { userConfigLocation } from "./config-locations.js";

export function userProtectedPaths(env: NodeJS.ProcessEnv): ProtectedPaths {
	const location = userConfigLocation(env);
	const user = readConfigFile(location.path, "user", location.required);
	return new ProtectedPaths((user?.data.protected_paths ?? []).map((p) => ({ pattern: p.pattern, reason: p.reason, source: user!.source })));
}
