/**
 * Protected paths: files inside the workspace that are not work but control. Something runs them
 * later, outside Warden and outside every sandbox, without asking: git runs hooks on the next commit
 * and programs named in its config (core.hooksPath, core.fsmonitor, core.sshCommand, filters,
 * aliases, include.path), a trusted project's next Warden session obeys `.warden/`, direnv runs
 * `.envrc` on `cd`, editors and other agents run their project tasks, hooks and MCP servers. A write
 * to one is code execution deferred to the user's next `git commit` or next session.
 *
 * The registry is host-owned data: the defaults below, plus what the host or the user config adds.
 * A project config can never shrink it (it is not an input to this module at all). Every writer
 * meets it at the primitive that performs the write; this module only knows paths, never who writes.
 *
 * Paths are workspace-relative, `/`-separated, as the fs primitives resolve them (real targets).
 * Matching ignores case, so a case-insensitive filesystem cannot be used to spell a way around it.
 */
import picomatch from "picomatch";

export interface ProtectedPathSpec {
	/** A glob over workspace-relative paths (picomatch, dotfiles match). `**\/` in front also covers nested repositories. */
	pattern: string;
	/** Why a write there is not ordinary work: shown by the approval prompt and `warden policy check`. */
	reason: string;
}

export interface ProtectedPathRule extends ProtectedPathSpec {
	/** Where the entry came from: `default`, `user config <file>`, `host`. */
	source: string;
}

/** A protected path that a write would touch. */
export interface ProtectedPathHit {
	rule: ProtectedPathRule;
	/** The workspace-relative path that matched. */
	path: string;
}

const GIT_CONFIG_REASON =
	"changes git's config: it can name programs git runs on its own (core.hooksPath, core.fsmonitor, core.sshCommand, filters, aliases, include.path)";

const GIT_DIR_REASON = "points git at another git directory: git would take its config and hooks from there";

const SKILL_REASON = "writes an Agent Skill: a later session (Warden's or another agent's) offers its instructions to the model and runs its scripts";

/** The defaults. Each names what later runs it; one test per row. */
export const DEFAULT_PROTECTED_PATHS: readonly ProtectedPathSpec[] = [
	{ pattern: "**/.warden", reason: "writes Warden's project config: a trusted project's next session obeys it (mode, rules, grants)" },
	{ pattern: "**/.warden/**", reason: "writes Warden's project config: a trusted project's next session obeys it (mode, rules, grants)" },
	{ pattern: "**/.agents/skills", reason: SKILL_REASON },
	{ pattern: "**/.agents/skills/**", reason: SKILL_REASON },
	{ pattern: "**/.git", reason: "writes the repository's git directory pointer: git would then take its hooks and config from elsewhere" },
	{ pattern: "**/.git/hooks", reason: "writes a git hook: runs outside the sandbox on the next commit" },
	{ pattern: "**/.git/hooks/**", reason: "writes a git hook: runs outside the sandbox on the next commit" },
	{ pattern: "**/.git/config", reason: GIT_CONFIG_REASON },
	{ pattern: "**/.git/config.worktree", reason: GIT_CONFIG_REASON },
	{ pattern: "**/.git/worktrees/*/config.worktree", reason: GIT_CONFIG_REASON },
	{ pattern: "**/.git/worktrees/*/config", reason: GIT_CONFIG_REASON },
	// Without a commondir, git takes a worktree's git dir for a whole one: its own hooks then run.
	{ pattern: "**/.git/worktrees/*/hooks/**", reason: "writes a git hook in a worktree's git dir: git runs it there when the worktree has no commondir" },
	{ pattern: "**/.git/worktrees/*/commondir", reason: GIT_DIR_REASON },
	{ pattern: "**/.git/worktrees/*/gitdir", reason: "writes a worktree's back pointer: git would take that worktree's files from elsewhere" },
	{ pattern: "**/.git/commondir", reason: GIT_DIR_REASON },
	{ pattern: "**/.git/info/attributes", reason: "writes git attributes: they name the filter and diff drivers git runs on checkout, add and diff" },
	{ pattern: "**/.git/objects/info/alternates", reason: "points git's object store at another directory: what git checks out would come from there" },
	{ pattern: "**/.git/modules/**/hooks/**", reason: "writes a submodule's git hook: runs outside the sandbox on the next commit there" },
	{ pattern: "**/.git/modules/**/config", reason: GIT_CONFIG_REASON },
	{ pattern: "**/.git/modules/**/config.worktree", reason: GIT_CONFIG_REASON },
	{ pattern: "**/.git/modules/**/commondir", reason: GIT_DIR_REASON },
	{ pattern: "**/.git/modules/**/info/attributes", reason: "writes a submodule's git attributes: they name the filter and diff drivers git runs there" },
	{ pattern: "**/.git/modules/**/objects/info/alternates", reason: "points a submodule's object store at another directory" },
	{ pattern: "**/.envrc", reason: "writes a direnv file: direnv runs it as a shell script when the user enters the directory" },
	{ pattern: ".husky/**", reason: "writes a husky git hook: runs outside the sandbox on the next commit" },
	{ pattern: ".pre-commit-config.yaml", reason: "writes pre-commit's config: the hooks it names run on the next commit" },
	{ pattern: ".vscode/tasks.json", reason: "writes editor tasks: VS Code can run them when the folder opens" },
	{ pattern: ".vscode/settings.json", reason: "writes editor settings: they can name programs the editor runs on its own" },
	{ pattern: ".devcontainer/**", reason: "writes a dev container config: its initializeCommand runs on the host" },
	{ pattern: ".devcontainer.json", reason: "writes a dev container config: its initializeCommand runs on the host" },
	{ pattern: ".mcp.json", reason: "writes the project's MCP servers: an agent starts the commands it names" },
	{ pattern: ".claude/settings.json", reason: "writes another agent's project settings: its hooks run commands" },
	{ pattern: ".claude/settings.local.json", reason: "writes another agent's project settings: its hooks run commands" },
	{ pattern: ".gemini/settings.json", reason: "writes another agent's project settings: its hooks and MCP servers run commands" },
	{ pattern: ".cursor/mcp.json", reason: "writes another agent's MCP servers: it starts the commands they name" },
];

/**
 * Literal workspace-relative paths the shell sandbox keeps read-only whether or not they exist:
 * the roots of the defaults that a command at the workspace's top could create. (Nested
 * repositories' git directories are covered by the patterns at the fs primitives, and by the
 * sandbox where they already exist.) `.git/commondir` is not here: git refuses to open a
 * repository whose commondir is empty, so no stand-in can hold its place; the sandbox checks for
 * it after each command instead (providers/sandbox/protected-sweep.ts).
 */
export const SANDBOX_PROTECTED_ROOTS: readonly string[] = [
	".warden",
	".agents/skills",
	".git/hooks",
	".git/config",
	".git/config.worktree",
	".git/info/attributes",
	".git/objects/info/alternates",
	".envrc",
	".husky",
	".pre-commit-config.yaml",
	".vscode/tasks.json",
	".vscode/settings.json",
	".devcontainer",
	".devcontainer.json",
	".mcp.json",
	".claude/settings.json",
	".claude/settings.local.json",
	".gemini/settings.json",
	".cursor/mcp.json",
];

export class ProtectedPathError extends Error {
	override name = "ProtectedPathError";
}

/** A protected-path pattern that does not compile or could never match a workspace path. */
export function checkProtectedPattern(pattern: string): string | undefined {
	if (typeof pattern !== "string" || pattern.trim() === "") return "a protected path pattern must be a non-empty string";
	if (pattern.includes("\0")) return "a protected path pattern must not contain a NUL byte";
	if (pattern.startsWith("/")) return `protected path pattern ${JSON.stringify(pattern)} must be workspace-relative, not absolute`;
	if (pattern.split("/").includes("..")) return `protected path pattern ${JSON.stringify(pattern)} must not climb out with ..`;
	return undefined;
}

interface CompiledRule {
	rule: ProtectedPathRule;
	test: (path: string) => boolean;
	/**
	 * Lower-cased literal pieces every path the pattern matches contains, for a pattern of only
	 * literals, `*`, `?` and `/`: a path missing one is passed over without running the glob. Empty
	 * for any other pattern (braces, classes, extglobs, negation, escapes), which is always tested.
	 */
	pieces: string[];
}

/** Characters after which a pattern's literal text no longer has to appear in what it matches. */
const NOT_LITERAL = /[[\]{}()!+@\\]/;

function literalPieces(pattern: string): string[] {
	if (NOT_LITERAL.test(pattern)) return [];
	return pattern
		.toLowerCase()
		.split(/[*?/]+/)
		.filter((piece) => piece !== "" && piece !== "." && piece !== "..");
}

/** Whether the lower-cased path holds every literal piece of the rule (always, for a rule without any). */
const mayMatch = (c: CompiledRule, lower: string): boolean => c.pieces.every((piece) => lower.includes(piece));

export class ProtectedPaths {
	private readonly compiled: CompiledRule[];

	/** The defaults, then each extra rule (host or user config). There is no way to remove a default. */
	constructor(extra: readonly ProtectedPathRule[] = []) {
		const rules: ProtectedPathRule[] = [...DEFAULT_PROTECTED_PATHS.map((d) => ({ ...d, source: "default" })), ...extra];
		this.compiled = rules.map((rule) => {
			const problem = checkProtectedPattern(rule.pattern);
			if (problem !== undefined) throw new ProtectedPathError(`${rule.source}: ${problem}`);
			return { rule, test: picomatch(rule.pattern, { dot: true, nocase: true }), pieces: literalPieces(rule.pattern) };
		});
	}

	/** Every rule in force, defaults first. */
	rules(): readonly ProtectedPathRule[] {
		return this.compiled.map((c) => c.rule);
	}

	/**
	 * The rule a write to `rel` meets: the path itself matches, or it is a directory that holds
	 * protected paths (creating, replacing or deleting it touches them). Undefined for ordinary work.
	 */
	match(rel: string): ProtectedPathHit | undefined {
		const path = normalize(rel);
		if (path === "" || path === ".") return undefined;
		// Matching ignores case, so the pieces are looked for in the lower-cased path.
		const lower = path.toLowerCase();
		for (const c of this.compiled) if (mayMatch(c, lower) && c.test(path)) return { rule: c.rule, path };
		// A directory whose contents are protected: `.git/hooks` itself, `.husky`, `.devcontainer`.
		const inside = `${path}/x`;
		const lowerInside = `${lower}/x`;
		for (const c of this.compiled) if (mayMatch(c, lowerInside) && c.test(inside)) return { rule: c.rule, path };
		return undefined;
	}

	/** Whether the path is protected. */
	covers(rel: string): boolean {
		return this.match(rel) !== undefined;
	}

	/** The extra rules' literal paths (no glob characters), for the sandbox to keep read-only too. */
	extraLiteralRoots(): string[] {
		return this.compiled
			.filter((c) => c.rule.source !== "default" && !/[*?[\]{}()!+@]/.test(c.rule.pattern))
			.map((c) => normalize(c.rule.pattern));
	}
}

function normalize(rel: string): string {
	let p = rel.replace(/\\/g, "/").replace(/\/{2,}/g, "/");
	while (p.startsWith("./")) p = p.slice(2);
	if (p.endsWith("/") && p.length > 1) p = p.replace(/\/+$/, "");
	return p;
}

/** The registry with only the defaults: what a host gets when it adds nothing. */
export const defaultProtectedPaths = (): ProtectedPaths => new ProtectedPaths();
