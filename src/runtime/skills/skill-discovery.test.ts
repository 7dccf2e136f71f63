import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { discoverSkills, userSkillsDir } from "./skill-discovery.js";

let root: string;
let userDir: string;
let workspace: string;

async function put(path: string, text: string): Promise<void> {
	await mkdir(dirname(path), { recursive: true });
	await writeFile(path, text);
}

const skillText = (name: string, description: string, body = "Steps.\n") => `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;

beforeEach(async () => {
	root = await mkdtemp(join(tmpdir(), "warden-skills-"));
	userDir = join(root, "config", "warden", "skills");
	workspace = join(root, "ws");
	await mkdir(workspace, { recursive: true });
});
afterEach(async () => {
	await rm(root, { recursive: true, force: true });
});

describe("skill discovery", () => {
	it("finds the user's skills and the workspace's, labels them by trust, and sorts them by name", async () => {
		await put(join(userDir, "release-notes", "SKILL.md"), skillText("release-notes", "Write release notes."));
		await put(join(workspace, ".agents/skills/deploy/SKILL.md"), skillText("deploy", "Deploy the service."));
		await put(join(workspace, ".agents/skills/deploy/scripts/run.sh"), "echo deploy\n");
		await put(join(workspace, ".warden/skills/api-docs/SKILL.md"), skillText("api-docs", "Document the API."));
		const found = await discoverSkills({ userDir, workspace, trusted: false });
		expect(found.warnings).toEqual([]);
		expect(found.skills.map((s) => [s.name, s.source, s.trusted])).toEqual([
			["api-docs", "workspace", false],
			["deploy", "workspace", false],
			["release-notes", "user", true],
		]);
		expect(found.skills[1]!.body).toBe("Steps.");
		expect(found.skills[1]!.sha256).toMatch(/^[0-9a-f]{64}$/);
		const trusted = await discoverSkills({ userDir, workspace, trusted: true });
		expect(trusted.skills.every((s) => s.trusted)).toBe(true);
	});

	it("lets the workspace win a name clash and says so, naming both files", async () => {
		await put(join(userDir, "deploy", "SKILL.md"), skillText("deploy", "The user's deploy."));
		await put(join(workspace, ".agents/skills/deploy/SKILL.md"), skillText("deploy", "The project's deploy."));
		const found = await discoverSkills({ userDir, workspace, trusted: false });
		expect(found.skills).toHaveLength(1);
		expect(found.skills[0]).toMatchObject({ source: "workspace", description: "The project's deploy." });
		expect(found.warnings).toEqual([
			{ file: join(workspace, ".agents/skills/deploy/SKILL.md"), field: "name", message: expect.stringContaining(`shadows the user skill of the same name in ${join(userDir, "deploy", "SKILL.md")}: the workspace's one is used`) },
		]);
	});

	it("skips a malformed skill with one warning naming the file and the field, and keeps the others", async () => {
		await put(join(workspace, ".agents/skills/Bad-Name/SKILL.md"), skillText("Bad-Name", "x"));
		await put(join(workspace, ".agents/skills/long/SKILL.md"), skillText("long", "d".repeat(1100)));
		await put(join(workspace, ".agents/skills/empty/notes.md"), "no SKILL.md here\n");
		await put(join(workspace, ".agents/skills/good/SKILL.md"), skillText("good", "Works."));
		const found = await discoverSkills({ userDir, workspace, trusted: false });
		expect(found.skills.map((s) => s.name)).toEqual(["good"]);
		expect(found.warnings.map((w) => [w.file.slice(workspace.length + 1), w.field])).toEqual([
			[".agents/skills/Bad-Name/SKILL.md", "name"],
			[".agents/skills/empty/SKILL.md", "SKILL.md"],
			[".agents/skills/long/SKILL.md", "description"],
		]);
	});

	it("follows no link: a linked skill folder or SKILL.md is skipped with a warning", async () => {
		await put(join(root, "elsewhere", "stolen", "SKILL.md"), skillText("stolen", "From outside."));
		await mkdir(join(workspace, ".agents/skills/linked-file"), { recursive: true });
		await symlink(join(root, "elsewhere", "stolen", "SKILL.md"), join(workspace, ".agents/skills/linked-file/SKILL.md"));
		await symlink(join(root, "elsewhere", "stolen"), join(workspace, ".agents/skills/stolen"));
		const found = await discoverSkills({ userDir, workspace, trusted: true });
		expect(found.skills).toEqual([]);
		expect(found.warnings.map((w) => w.message)).toEqual([expect.stringContaining("symbolic link"), expect.stringContaining("symbolic link")]);
	});

	it("finds nothing, and says nothing, where no skills directory exists", async () => {
		expect(await discoverSkills({ userDir, workspace, trusted: false })).toEqual({ skills: [], warnings: [] });
	});

	it("puts the user's skills dir beside the user config", () => {
		expect(userSkillsDir({ XDG_CONFIG_HOME: "/x/config", HOME: "/home/u" })).toBe("/x/config/warden/skills");
		expect(userSkillsDir({ HOME: "/home/u" })).toBe("/home/u/.config/warden/skills");
		// $WARDEN_CONFIG names one file, not a directory of skills: the default home stays.
		expect(userSkillsDir({ HOME: "/home/u", WARDEN_CONFIG: "/etc/w.yaml" })).toBe("/home/u/.config/warden/skills");
	});
});
