/**
 * Which sandbox works here. Each provider is proven once per process by running a command through
 * it that writes in a scratch workspace and fails to write beside it (user namespaces can be
 * disabled, bwrap can lack its setuid bit, Landlock can be off at boot, the helper can be missing):
 * a binary that exists is not enough. `auto` takes bubblewrap, else Landlock; the setting
 * WARDEN_SANDBOX_PROVIDER (bwrap, landlock, none, auto) forces one.
 */
import { constants, existsSync, readFileSync } from "node:fs";
import { access, mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runShell } from "../shell-provider.js";
import { bwrapInvocation } from "./bwrap-invocation.js";
import { prepareSandbox } from "./prepare-sandbox.js";
import type { SandboxProviderName } from "./sandbox-profile.js";

export type SandboxChoice = "auto" | SandboxProviderName | "none";
export const SANDBOX_CHOICES: readonly SandboxChoice[] = ["auto", "bwrap", "landlock", "none"];
/** The setting that forces a provider. */
export const SANDBOX_PROVIDER_ENV = "WARDEN_SANDBOX_PROVIDER";

export type SandboxProbe =
	| { available: true; provider: "bwrap"; program: string; bwrap: string }
	| { available: true; provider: "landlock"; program: string; abi: number }
	| { available: false; reason: string };

const PROBE_TIMEOUT_MS = 5_000;
const PROBE_ENV = { PATH: "/usr/bin:/bin" };
/** landlock-exec's own exit status when it cannot confine (native/landlock-exec.c). */
export const LANDLOCK_UNAVAILABLE_EXIT = 97;
/** Built by scripts/build-native.mjs from native/landlock-exec.c; the same place from src/ and dist/. */
export const LANDLOCK_HELPER = fileURLToPath(new URL("../../../dist/native/landlock-exec", import.meta.url));
const cached = new Map<string, Promise<SandboxProbe>>();

/** The choice a setting names; a value that names none is an error, never a silent `auto`. */
export function sandboxChoice(env: NodeJS.ProcessEnv = process.env): SandboxChoice {
	const value = env[SANDBOX_PROVIDER_ENV];
	if (value === undefined || value === "") return "auto";
	if (!(SANDBOX_CHOICES as readonly string[]).includes(value)) {
		throw new RangeError(`${SANDBOX_PROVIDER_ENV} must be one of ${SANDBOX_CHOICES.join(", ")}, got ${JSON.stringify(value)}`);
	}
	return value as SandboxChoice;
}

async function findOnPath(name: string, path: string | undefined): Promise<string | undefined> {
	for (const dir of (path ?? "").split(delimiter)) {
		if (dir === "") continue;
		const candidate = join(dir, name);
		try {
			await access(candidate, constants.X_OK);
			return candidate;
		} catch {
			// Not in this directory.
		}
	}
	return undefined;
}

/** A scratch workspace with a sibling the command must fail to write. */
async function withScratch<T>(run: (ws: string, beside: string) => Promise<T>): Promise<T> {
	const scratch = await realpath(await mkdtemp(join(tmpdir(), "warden-sandbox-probe-")));
	try {
		const ws = join(scratch, "ws");
		await mkdir(ws);
		return await run(ws, join(scratch, "beside"));
	} finally {
		await rm(scratch, { recursive: true, force: true });
	}
}

function failure(ran: { timedOut: boolean; stderr: string; exitCode: number | null }): string {
	return ran.timedOut ? "it timed out" : (ran.stderr.trim().split("\n")[0] ?? "") || `exit ${ran.exitCode}`;
}

export async function probeBwrap(path = process.env.PATH): Promise<SandboxProbe> {
	const bwrap = await findOnPath("bwrap", path);
	if (bwrap === undefined) return { available: false, reason: "bubblewrap (bwrap) is not installed" };
	try {
		return await withScratch(async (ws, beside) => {
			const { program, args } = bwrapInvocation({ name: "workspace-write", workspace: ws, network: false }, `echo ok > probe && cat probe; echo x > ${beside} 2>/dev/null`, PROBE_ENV, bwrap);
			const ran = await runShell({ command: "", cwd: ws, env: PROBE_ENV, timeoutMs: PROBE_TIMEOUT_MS, maxOutputBytes: 4096, wrap: { program, args } });
			if (ran.stdout.trim() === "ok" && !existsSync(beside)) return { available: true, provider: "bwrap", program: bwrap, bwrap };
			return { available: false, reason: `${bwrap} does not work here: ${failure(ran)}` };
		});
	} catch (err) {
		return { available: false, reason: `${bwrap} could not be started: ${err instanceof Error ? err.message : String(err)}` };
	}
}

export async function probeLandlock(helper = LANDLOCK_HELPER): Promise<SandboxProbe> {
	try {
		await access(helper, constants.X_OK);
	} catch {
		const why = join(helper, "..", "landlock-exec.unavailable");
		const told = existsSync(why) ? readFileSync(why, "utf8").trim() : `${helper} is not built (npm run build compiles it; it needs a C compiler)`;
		return { available: false, reason: told };
	}
	try {
		const version = await runShell({ command: "", cwd: tmpdir(), env: PROBE_ENV, timeoutMs: PROBE_TIMEOUT_MS, maxOutputBytes: 4096, wrap: { program: helper, args: ["--probe"] } });
		const abi = /abi=(\d+)/.exec(version.stdout)?.[1];
		if (version.exitCode !== 0 || abi === undefined) return { available: false, reason: (version.stderr.trim().split("\n")[0] ?? "").replace(/^warden-landlock: /, "") || `the Landlock helper exited ${version.exitCode}` };
		return await withScratch(async (ws, beside) => {
			const prepared = await prepareSandbox({ provider: "landlock", program: helper }, { name: "workspace-write", workspace: ws, network: false }, `echo ok > probe && cat probe; echo x > ${beside} 2>/dev/null`, PROBE_ENV);
			try {
				const ran = await runShell({ command: "", cwd: ws, env: prepared.env, timeoutMs: PROBE_TIMEOUT_MS, maxOutputBytes: 4096, wrap: prepared });
				if (ran.stdout.trim() === "ok" && !existsSync(beside)) return { available: true, provider: "landlock", program: helper, abi: Number(abi) };
				return { available: false, reason: `Landlock does not confine here: ${failure(ran)}` };
			} finally {
				await prepared.cleanup();
			}
		});
	} catch (err) {
		return { available: false, reason: `the Landlock helper could not be started: ${err instanceof Error ? err.message : String(err)}` };
	}
}

/** Runs the proof for a choice; `probeSandbox` caches it. */
export async function probeSandboxUncached(choice: SandboxChoice = "auto", path = process.env.PATH): Promise<SandboxProbe> {
	if (choice === "none") return { available: false, reason: `${SANDBOX_PROVIDER_ENV}=none` };
	if (choice === "bwrap") return probeBwrap(path);
	if (choice === "landlock") return probeLandlock();
	const bwrap = await probeBwrap(path);
	if (bwrap.available) return bwrap;
	const landlock = await probeLandlock();
	if (landlock.available) return landlock;
	return { available: false, reason: `${bwrap.reason}; ${landlock.reason}` };
}

/** The probe's answer for a choice (default: the setting's), proven once per process. */
export function probeSandbox(choice: SandboxChoice = sandboxChoice()): Promise<SandboxProbe> {
	let found = cached.get(choice);
	if (found === undefined) {
		found = probeSandboxUncached(choice);
		cached.set(choice, found);
	}
	return found;
}
