/** A workspace with a `.warden/` and a config home, for tests that resolve the layered config. */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ConfigFixture {
	workspace: string;
	configHome: string;
	userPath: string;
	projectPath: string;
	/** The environment that makes config resolution read this fixture's user config. */
	env: NodeJS.ProcessEnv;
}

/** `user` and `project` are written as the two config files; `<ws>` in the user file becomes the workspace path. */
export function configFixture(files: { user?: string; project?: string } = {}, prefix = "warden-config-"): ConfigFixture {
	const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
	const workspace = join(root, "ws");
	const configHome = join(root, "config");
	mkdirSync(join(workspace, ".warden"), { recursive: true });
	mkdirSync(join(configHome, "warden"), { recursive: true });
	const userPath = join(configHome, "warden", "config.yaml");
	const projectPath = join(workspace, ".warden", "config.yaml");
	if (files.user !== undefined) writeFileSync(userPath, files.user.replaceAll("<ws>", workspace));
	if (files.project !== undefined) writeFileSync(projectPath, files.project);
	return { workspace, configHome, userPath, projectPath, env: { HOME: root, XDG_CONFIG_HOME: configHome } };
}
