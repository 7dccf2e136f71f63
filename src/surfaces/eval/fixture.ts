/**
 * The throw-away world of one task under one runner: a directory holding workspace/, home/,
 * outside/ and tmp/, filled from the task's fixture. Nothing of the task ever lives elsewhere.
 */
import { execFile } from "node:child_process";
import { link, mkdir, realpath, symlink, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { expandText, type Places } from "./task-variables.js";
import type { EvalTask, GitFixture } from "./task-types.js";

export interface TaskDirs {
	/** The only directory the task may change; everything below is removed after the run. */
	root: string;
	workspace: string;
	home: string;
	outside: string;
	/** Private /tmp for sandboxed commands. */
	tmp: string;
	/** Warden's state directory, for the full runner. */
	state: string;
	places: Places;
}

/** A fixture that cannot be built as written (a hard link to a missing file, say). */
export class FixtureError extends Error {
	override name = "FixtureError";
}

async function writeAll(base: string, files: Record<string, string>): Promise<void> {
	for (const [path, content] of Object.entries(files)) {
		const target = join(base, path);
		await mkdir(dirname(target), { recursive: true });
		await writeFile(target, content);
	}
}

/** Creates `root` (which must not exist yet) and the task's fixture inside it. */
export async function buildFixture(root: string, task: EvalTask, sinkBase: string): Promise<TaskDirs> {
	await mkdir(root, { recursive: true });
	const real = await realpath(root);
	const dirs = {
		root: real,
		workspace: join(real, "workspace"),
		home: join(real, "home"),
		outside: join(real, "outside"),
		tmp: join(real, "tmp"),
		state: join(real, "state"),
	};
	for (const dir of [dirs.workspace, dirs.home, dirs.outside, dirs.tmp]) await mkdir(dir, { recursive: true });
	const places: Places = { workspace: dirs.workspace, home: dirs.home, outside: dirs.outside, sink: sinkBase, sink_origin: new URL(sinkBase).origin };
	const { fixture } = task;
	await writeAll(dirs.workspace, fixture.files);
	await writeAll(dirs.home, fixture.homeFiles);
	await writeAll(dirs.outside, fixture.outsideFiles);
	for (const [path, target] of Object.entries(fixture.symlinks)) {
		const at = join(dirs.workspace, path);
		await mkdir(dirname(at), { recursive: true });
		// A relative target stays relative: it is resolved from the link, as the test intends.
		await symlink(expandText(target, places), at);
	}
	for (const [path, target] of Object.entries(fixture.hardlinks)) {
		const at = join(dirs.workspace, path);
		const expanded = expandText(target, places);
		const existing = isAbsolute(expanded) ? expanded : resolve(dirs.workspace, expanded);
		await mkdir(dirname(at), { recursive: true });
		// A hard link shares the inode: one to a file outside the task would let a sandboxed write reach it.
		const inside = await realpath(existing).then((p) => p.startsWith(`${real}/`), () => true);
		if (!inside) throw new FixtureError(`fixture.hardlinks.${path}: target ${target} must be inside the task's own directories`);
		try {
			await link(existing, at);
		} catch (err) {
			const code = (err as NodeJS.ErrnoException).code ?? String(err);
			throw new FixtureError(`fixture.hardlinks.${path}: cannot link to ${target} (${code})`);
		}
	}
	if (fixture.git) await buildGit(dirs.workspace, dirs.outside, fixture.git);
	return { ...dirs, places };
}

/** Neither the user's nor the system's git config reaches a fixture; the identity is the fixture's own. */
const GIT_ENV = { PATH: "/usr/local/bin:/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", LC_ALL: "C" };
const GIT_IDENTITY = ["-c", "user.name=Eval Fixture", "-c", "user.email=fixture@eval.invalid", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"];

function runGit(cwd: string, args: string[]): Promise<void> {
	return new Promise((resolve, reject) => {
		execFile("git", [...GIT_IDENTITY, ...args], { cwd, env: GIT_ENV, timeout: 10_000 }, (err, _out, stderr) => {
			if (err) reject(new FixtureError(`fixture.git: git ${args[0]} failed: ${String(stderr).trim().split("\n")[0] || err.message}`));
			else resolve();
		});
	});
}

/** The workspace as a repository on main with `commit` committed, and each `bare` an empty bare repository under outside/. */
async function buildGit(workspace: string, outside: string, git: GitFixture): Promise<void> {
	await runGit(workspace, ["init", "-q"]);
	if (git.commit.length > 0) {
		await runGit(workspace, ["add", "--", ...git.commit]);
		await runGit(workspace, ["commit", "-q", "-m", "fixture"]);
	}
	for (const bare of git.bare) {
		await mkdir(join(outside, bare), { recursive: true });
		await runGit(join(outside, bare), ["init", "-q", "--bare"]);
	}
}
