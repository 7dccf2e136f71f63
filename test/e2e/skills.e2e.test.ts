import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectValidTrace, makeFixture, parseEvents, runCli, writePlan } from "./cli-harness.js";

const skill = (name: string, description: string, body: string, extra = "") => `---\nname: ${name}\ndescription: ${description}\n${extra}---\n${body}\n`;

function put(path: string, text: string): void {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, text);
}

describe("skills (end to end, real CLI)", () => {
	it("the model activates a workspace skill and reads one of its files through read_file; the activation is an event", async () => {
		const fx = makeFixture({
			".agents/skills/changelog/SKILL.md": skill("changelog", "Write the changelog entry for a release.", "Follow template.md exactly."),
			".agents/skills/changelog/template.md": "## vX.Y.Z\n- change\n",
		});
		const plan = writePlan(fx, [
			{ tool_calls: [{ name: "activate_skill", arguments: { name: "changelog" } }] },
			{ tool_calls: [{ name: "read_file", arguments: { path: ".agents/skills/changelog/template.md" } }] },
			{ text: "changelog written" },
		]);
		const run = await runCli(["run", "write the changelog", "--model", `scripted:${plan}`, "--workspace", fx.workspace, "--state-dir", fx.stateDir, "--json"]);
		expect(run.code, run.stderr).toBe(0);
		const events = parseEvents(run.stdout);
		expectValidTrace(events);
		const activated = events.find((e) => e.kind === "skill.activated");
		expect(activated?.payload).toMatchObject({ name: "changelog", source: "workspace", trusted: false, files: 1 });
		const outcomes = events.filter((e) => e.kind === "tool.completed").map((e) => (e.payload as { tool: string }).tool);
		expect(outcomes).toEqual(["activate_skill", "read_file"]);
		// The read went through the governed file tools: its fs.read effect is in the audit, under the read's call.
		const audit = await runCli(["audit", "list", "--json", "--session", events[0]!.session, "--state-dir", fx.stateDir]);
		const records = audit.stdout.trim().split("\n").map((l) => JSON.parse(l) as { kind: string; call_id?: string; data: Record<string, unknown> });
		expect(records.find((r) => r.kind === "skill.activated")).toMatchObject({ call_id: "call_1_1_1", data: { name: "changelog" } });
		expect(records.find((r) => r.kind === "permission.decided" && r.call_id === "call_1_2_1")?.data.decision).toBe("allow");
		expect(events.at(-2)).toMatchObject({ kind: "turn.completed", payload: { status: "completed", text: "changelog written" } });
	});

	it("warden skills list shows each skill with its source and trust, and each warning naming the file and field", async () => {
		const fx = makeFixture({
			".agents/skills/deploy/SKILL.md": skill("deploy", "Deploy to staging.", "Steps.", "allowed-tools: Read Bash(git status:*)\n"),
			".warden/skills/Broken/SKILL.md": skill("Broken", "x", "y"),
		});
		const config = join(fx.dir, "config-home");
		put(join(config, "warden", "skills", "deploy", "SKILL.md"), skill("deploy", "The user's deploy.", "Mine."));
		put(join(config, "warden", "skills", "notes", "SKILL.md"), skill("notes", "Take notes.", "Short lines."));
		const env = { XDG_CONFIG_HOME: config };
		const text = await runCli(["skills", "list", "--workspace", fx.workspace], { env });
		expect(text.code, text.stderr).toBe(0);
		expect(text.stdout).toMatch(/^deploy\s+workspace\s+untrusted\s+.*\.agents\/skills\/deploy\/SKILL\.md$/m);
		expect(text.stdout).toMatch(/^notes\s+user\s+trusted\s+/m);
		expect(text.stdout).toContain("allowed-tools (narrows only): read_file, shell(git status *)");
		expect(text.stdout).toContain(`warning: ${fx.workspace}/.agents/skills/deploy/SKILL.md: name: deploy shadows the user skill`);
		expect(text.stdout).toContain(`warning: ${fx.workspace}/.warden/skills/Broken/SKILL.md: name: must be 1 to 64 characters`);
		expect(text.stdout).toContain("2 skill(s): 1 user, 1 workspace; 2 warning(s)");

		// Trusted once the user config lists the project.
		put(join(config, "warden", "config.yaml"), `trusted_projects: [${JSON.stringify(fx.workspace)}]\n`);
		const json = await runCli(["skills", "list", "--workspace", fx.workspace, "--json"], { env });
		expect(json.code, json.stderr).toBe(0);
		const report = JSON.parse(json.stdout) as { skills: { name: string; source: string; trusted: boolean }[]; warnings: { field: string }[] };
		expect(report.skills.map((s) => [s.name, s.source, s.trusted])).toEqual([
			["deploy", "workspace", true],
			["notes", "user", true],
		]);
		expect(report.warnings.map((w) => w.field)).toEqual(["name", "name"]);
	});
});
