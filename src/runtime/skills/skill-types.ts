/** Agent Skills as Warden finds them: a folder with a SKILL.md, its source, and what was wrong with the ones left out. */
import type { PermissionRule } from "../../kernel/admission/types.js";

/** `user`: the user's own skills dir (the user's words); `workspace`: the project's `.agents/skills/` or `.warden/skills/`. */
export type SkillSource = "user" | "workspace";

export interface Skill {
	name: string;
	description: string;
	license?: string;
	compatibility?: string;
	metadata?: Record<string, string>;
	/** `allowed-tools` as written (each entry), and as the permission rules it narrows the session to. */
	allowedTools?: { entries: string[]; rules: PermissionRule[] };
	source: SkillSource;
	/** The skills directory it was found in (absolute). */
	root: string;
	/** The skill's folder (absolute). */
	dir: string;
	/** Its SKILL.md (absolute). */
	file: string;
	/** sha256 of SKILL.md as read. */
	sha256: string;
	/** The instructions after the frontmatter. */
	body: string;
	/** A user skill is the user's word; a workspace skill only when the user trusts the project. */
	trusted: boolean;
}

/** One skill left out, or one that shadows another: the file, the field at fault, and why. */
export interface SkillWarning {
	file: string;
	/** The frontmatter field at fault (`name`, `allowed-tools` …), or `frontmatter`, `SKILL.md` for the file itself. */
	field: string;
	message: string;
}

export interface SkillCatalogue {
	/** Sorted by name; one per name (the workspace's where both have one). */
	skills: Skill[];
	warnings: SkillWarning[];
}
