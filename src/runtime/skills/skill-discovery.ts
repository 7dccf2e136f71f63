/**
 * Where skills come from: the user's skills dir beside the user config (`<config home>/warden/skills`),
 * then the workspace's `.agents/skills/` (the cross-agent convention) and `.warden/skills/`. On a
 * name clash the later one wins and the warning says which file shadowed which. A malformed skill
 * is left out with one warning naming its file and the field at fault.
 */
import { join } from "node:path";
import { readSkillFile, skillFolders } from "../../providers/skill-folders.js";
import { wardenConfigHome } from "../context/project-instructions.js";
import { parseSkillFile } from "./skill-frontmatter.js";
import type { Skill, SkillCatalogue, SkillSource, SkillWarning } from "./skill-types.js";

/** The workspace's skills directories, in the order they are read (a later one wins a clash). */
export const WORKSPACE_SKILL_DIRS = [".agents/skills", ".warden/skills"] as const;

export interface SkillSources {
	/** The user's skills directory; absent, none is read. */
	userDir?: string;
	workspace: string;
	/** Whether the user trusts the project: its skills are untrusted data otherwise. */
	trusted: boolean;
}

/** `<config home>/warden/skills`: the directory beside the user config Warden reads. */
export function userSkillsDir(env: NodeJS.ProcessEnv): string {
	return join(wardenConfigHome(env), "skills");
}

export async function discoverSkills(sources: SkillSources): Promise<SkillCatalogue> {
	const roots: { root: string; source: SkillSource }[] = [];
	if (sources.userDir) roots.push({ root: sources.userDir, source: "user" });
	for (const dir of WORKSPACE_SKILL_DIRS) roots.push({ root: join(sources.workspace, dir), source: "workspace" });
	const byName = new Map<string, Skill>();
	const warnings: SkillWarning[] = [];
	for (const { root, source } of roots) {
		for (const entry of await skillFolders(root)) {
			if ("skipped" in entry) {
				warnings.push({ file: entry.file, field: entry.field, message: entry.skipped });
				continue;
			}
			let read: { text: string; sha256: string };
			try {
				read = await readSkillFile(entry.file);
			} catch (err) {
				warnings.push({ file: entry.file, field: "SKILL.md", message: `could not be read (${(err as NodeJS.ErrnoException).code ?? String(err)})` });
				continue;
			}
			const parsed = parseSkillFile(read.text, entry.name);
			if (!parsed.ok) {
				warnings.push({ file: entry.file, field: parsed.field, message: parsed.message });
				continue;
			}
			const skill: Skill = { ...parsed.fields, source, root, dir: entry.dir, file: entry.file, sha256: read.sha256, body: parsed.body, trusted: source === "user" || sources.trusted };
			const shadowed = byName.get(skill.name);
			if (shadowed) warnings.push({ file: skill.file, field: "name", message: `${skill.name} shadows the ${shadowed.source} skill of the same name in ${shadowed.file}: the ${skill.source === "workspace" && shadowed.source === "user" ? "workspace's" : "later"} one is used` });
			byName.set(skill.name, skill);
		}
	}
	return { skills: [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), warnings };
}
