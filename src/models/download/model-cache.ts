/** Where downloaded models live: $WARDEN_CACHE_DIR, else $XDG_CACHE_HOME/warden/models, else ~/.cache/warden/models. */
import { homedir } from "node:os";
import { join } from "node:path";

export function modelCacheDir(env: NodeJS.ProcessEnv): string {
	const own = env.WARDEN_CACHE_DIR?.trim();
	if (own) return own;
	const xdg = env.XDG_CACHE_HOME?.trim();
	return join(xdg || join(env.HOME?.trim() || homedir(), ".cache"), "warden", "models");
}
