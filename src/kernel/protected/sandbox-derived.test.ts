/**
 * Paths a repository's config derives, held by the real sandboxes like registry rules: with
 * `core.hooksPath = .githooks` and an `include.path` naming a workspace file, a confined command
 * cannot create, overwrite, rename or replace the hook, the included config, or the program that
 * config names — under bubblewrap and under Landlock — while ordinary work beside them goes on.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { prepareSandbox } from "../../providers/sandbox/prepare-sandbox.js";
import type { SandboxProviderName } from "../../providers/sandbox/sandbox-profile.js";
import { probeSandbox } from "../../providers/sandbox/sandbox-probe.js";
import { withRepositoryConfig } from "./derived-registry.js";
import { sandboxProtectedMatch, sandboxProtectedRoots } from "./sandbox-roots.js";

const base = realpathSync(mkdtempSync("/var/tmp/warden-derived-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

const DERIVED = [".githooks/pre-commit", "config/git.inc", "scripts/monitor.sh"];

function fixture(name: string, state: "existing" | "absent"): string {
	const ws = join(base, name);
	for (const d of [".git/objects/info", ".git/refs/heads", ".git/hooks", "work", "config", "scripts"]) mkdirSync(join(ws, d), { recursive: true });
	writeFileSync(join(ws, ".git/HEAD"), "ref: refs/heads/main\n");
	writeFileSync(join(ws, ".git/config"), "[core]\n\thooksPath = .githooks\n[include]\n\tpath = ../config/git.inc\n");
	writeFileSync(join(ws, "work/bait"), "bait\n");
	if (state === "absent") return ws;
	mkdirSync(join(ws, ".githooks"));
	writeFileSync(join(ws, ".githooks/pre-commit"), "#!/bin/sh\nexit 0\n");
	writeFileSync(join(ws, "config/git.inc"), "[core]\n\tfsmonitor = scripts/monitor.sh\n");
	writeFileSync(join(ws, "scripts/monitor.sh"), "#!/bin/sh\n");
	return ws;
}

function describePath(abs: string): string {
	try {
		const st = lstatSync(abs);
		if (st.isSymbolicLink()) return `link:${st.ino}:${readlinkSync(abs)}`;
		if (st.isDirectory()) return `dir:${st.ino}`;
		return `file:${st.ino}:${createHash("sha256").update(readFileSync(abs)).digest("hex")}`;
	} catch {
		return "missing";
	}
}

function withAncestors(path: string): string[] {
	const out = [path];
	for (let d = dirname(path); d !== "."; d = dirname(d)) out.push(d);
	return out;
}

/** Each way in turn; `keep` leaves out the final removal, so what a step made stays to be seen. */
function attack(path: string, keep = false): string {
	const p = q(path);
	const parent = q(dirname(path));
	const steps = [`printf evil > ${p}`, `printf evil >> ${p}`, `mv ${p} ${q(`${path}.moved`)}`, `mkdir -p ${parent} && printf evil > ${p}`];
	for (const a of withAncestors(path).slice(1)) steps.push(`mv ${q(a)} ${q(`${a}.aside`)} && mkdir -p ${parent} && printf evil > ${p}`);
	steps.push(`ln -f work/bait ${p}`, `ln -sfn "$PWD/work/bait" ${p}`);
	if (!keep) steps.push(`rm -rf ${p}`);
	return steps.map((s) => `( ${s} ) 2>/dev/null`).join("; ");
}

const PROVIDERS: SandboxProviderName[] = ["bwrap", "landlock"];
const probes = await Promise.all(PROVIDERS.map((p) => probeSandbox(p)));

describe.each(PROVIDERS.map((provider, i) => ({ provider, probe: probes[i]! })))("paths a repository's config names, held: $provider", ({ provider, probe }) => {
	const run = async (ws: string, command: string) => {
		if (!probe.available) throw new Error("unreachable");
		const registry = withRepositoryConfig(undefined, ws, join(base, "home"), { rescan: true });
		const profile = { name: "workspace-write" as const, workspace: ws, network: false, protectedRoots: sandboxProtectedRoots(registry), protectedMatch: sandboxProtectedMatch(registry) };
		const prepared = await prepareSandbox({ provider: probe.provider, program: probe.program }, profile, command, { PATH: "/usr/bin:/bin" });
		try {
			return spawnSync(prepared.program, prepared.args, { env: prepared.env, cwd: ws, timeout: 10_000, encoding: "utf8" });
		} finally {
			await prepared.cleanup();
		}
	};

	it.skipIf(!probe.available)("an existing hook, included config and named program stay as they were; work beside them is written", async () => {
		const ws = fixture(`existing-${provider}`, "existing");
		for (const path of DERIVED) {
			const watched = withAncestors(path);
			const before = watched.map((p) => describePath(join(ws, p)));
			await run(ws, attack(path));
			expect(
				watched.map((p) => describePath(join(ws, p))),
				`${path} under ${provider}`,
			).toEqual(before);
		}
		const ok = await run(ws, "printf more >> work/bait");
		expect(ok.status, ok.stderr).toBe(0);
		expect(readFileSync(join(ws, "work/bait"), "utf8")).toBe("bait\nmore");
	});

	it.skipIf(!probe.available)("an absent hook under core.hooksPath and an absent included config cannot be made", async () => {
		const ws = fixture(`absent-${provider}`, "absent");
		for (const path of DERIVED.slice(0, 2)) {
			await run(ws, attack(path, true));
			expect(describePath(join(ws, path)), `${path} under ${provider}`).toBe("missing");
		}
	});
});
