/**
 * `warden skills list`: the Agent Skills a session in the workspace would be offered, each with
 * its source (the user's skills dir or the workspace's), whether it is trusted, its allowed-tools,
 * and every skill left out or shadowed with the file and field at fault.
 */
import type { Command } from "commander";
import type { SkillCatalogue } from "../../runtime/skills/skill-types.js";
import { EXIT } from "./cli-error.js";
import { shownLines } from "./shown-lines.js";

interface SkillsListFlags {
	workspace: string;
	config?: string;
	json?: boolean;
}

export function registerSkillsCommand(program: Command, out: (text: string) => void): void {
	const skills = program.command("skills").description("Agent Skills (SKILL.md folders): what a session in the workspace is offered");
	skills
		.command("list")
		.description("list the skills found in the user's skills dir and the workspace's .agents/skills and .warden/skills, with their source and warnings")
		.option("--workspace <dir>", "workspace whose skills to list", ".")
		.option("--config <file>", "user config file (default $WARDEN_CONFIG, else <config home>/warden/config.yaml): its trusted_projects says whether the workspace's skills are trusted")
		.option("--json", "one JSON object: skills and warnings")
		.action(async (flags: SkillsListFlags) => {
			const { resolveCliConfig } = await import("./cli-config.js");
			const { discoverSkills, userSkillsDir } = await import("../../runtime/skills/skill-discovery.js");
			const config = await resolveCliConfig({ workspace: flags.workspace, projectConfig: true, allow: [], ask: [], deny: [], ...(flags.config ? { config: flags.config } : {}) }, process.env);
			const userDir = userSkillsDir(process.env);
			const catalogue = await discoverSkills({ userDir, workspace: config.workspace, trusted: config.trustedProject });
			out(flags.json ? `${JSON.stringify(skillsReport(catalogue, userDir, config.workspace))}\n` : renderSkills(catalogue, userDir, config.workspace));
			process.exitCode = EXIT.ok;
		});
}

export function skillsReport(catalogue: SkillCatalogue, userDir: string, workspace: string): Record<string, unknown> {
	return {
		user_dir: userDir,
		workspace,
		skills: catalogue.skills.map((s) => ({
			name: s.name,
			description: s.description,
			source: s.source,
			file: s.file,
			trusted: s.trusted,
			...(s.license ? { license: s.license } : {}),
			...(s.compatibility ? { compatibility: s.compatibility } : {}),
			...(s.allowedTools ? { allowed_tools: s.allowedTools.rules.map((r) => r.text) } : {}),
		})),
		warnings: catalogue.warnings,
	};
}

export function renderSkills(catalogue: SkillCatalogue, userDir: string, workspace: string): string {
	const lines: string[] = [];
	const width = Math.max(4, ...catalogue.skills.map((s) => s.name.length));
	for (const s of catalogue.skills) {
		lines.push(`${s.name.padEnd(width)}  ${s.source.padEnd(9)}  ${(s.trusted ? "trusted" : "untrusted").padEnd(9)}  ${s.file}`);
		lines.push(`${" ".repeat(width)}  ${s.description}`);
		if (s.allowedTools) lines.push(`${" ".repeat(width)}  allowed-tools (narrows only): ${s.allowedTools.rules.map((r) => r.text).join(", ")}`);
	}
	for (const w of catalogue.warnings) lines.push(`warning: ${w.file}: ${w.field}: ${w.message}`);
	const users = catalogue.skills.filter((s) => s.source === "user").length;
	lines.push(
		catalogue.skills.length === 0 && catalogue.warnings.length === 0
			? `no skills in ${userDir} or ${workspace}/{.agents,.warden}/skills`
			: `${catalogue.skills.length} skill(s): ${users} user, ${catalogue.skills.length - users} workspace; ${catalogue.warnings.length} warning(s)`,
	);
	return shownLines(lines);
}
