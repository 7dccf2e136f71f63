/**
 * The files an MCP call's arguments name, so that its result is labelled by them as a shell
 * command's output is labelled by the files it names: a `.env` read through a filesystem server is
 * as secret as one read with read_file.
 *
 * The rule. Every string in the arguments is looked at, at any depth (arrays and nested objects
 * too), and is taken to name a file when
 *  - its property (or the property of the array holding it) has a path-like name: `path`, `paths`,
 *    `file`, `files`, `filename`, `dir`, `directory`, `source`, `destination`, `target`, `root`,
 *    `cwd`, or a name ending in `path`, `file`, `dir` or `directory` (`file_path`, `inputFile`,
 *    `outDir`), compared without case, `_` or `-`; or the tool's schema marks the property as one
 *    (McpCallRequest.pathKeys: its description speaks of a path, directory, folder or file name) — whatever
 *    the value looks like, relative to the workspace;
 *  - or its value looks like a path whatever the property is called: absolute (`/…`), in a home
 *    directory (`~/…`), a `file:` URI, or a relative path to an entry that exists in the workspace.
 * Text with a line break, a NUL or over PATH_MAX_CHARS is never a path. A value inside the
 * workspace is taken workspace-relative (its real target too, when it is a link); one outside it
 * stays absolute, and is secret by its name alone (`~/.ssh/id_rsa`, `/etc/app/.env`).
 * Over-labelling fails closed: a string taken for a path that is none labels nothing unless its
 * name is a secret file's.
 */
import { fileURLToPath } from "node:url";
import * as path from "node:path";

/** The longest text taken for a path (Linux's PATH_MAX). */
export const PATH_MAX_CHARS = 4096;
/** Strings looked at in one call's arguments; a call with more is looked at this far. */
const MAX_STRINGS = 1000;

const PATH_KEYS = new Set(["path", "paths", "file", "files", "filename", "filenames", "dir", "dirs", "directory", "directories", "source", "sources", "destination", "target", "root", "cwd", "src", "dest", "location"]);
const PATH_KEY_ENDS = ["path", "paths", "file", "files", "filename", "dir", "directory"];
/** A schema description that says its property is a file system location. */
const PATH_DESCRIPTION = /\b(?:path|directory|folder|file ?name)s?\b/i;

/** Whether a property name says its value is a file system location. */
export function isPathKey(key: string): boolean {
	const k = key.toLowerCase().replace(/[_-]/g, "");
	return PATH_KEYS.has(k) || PATH_KEY_ENDS.some((end) => k.endsWith(end));
}

/** The properties of a tool's input schema whose description speaks of files, paths or directories (top level). */
export function schemaPathKeys(schema: Record<string, unknown>): string[] {
	const props = schema.properties;
	if (typeof props !== "object" || props === null || Array.isArray(props)) return [];
	return Object.entries(props as Record<string, unknown>).flatMap(([key, spec]) => {
		const description = typeof spec === "object" && spec !== null ? (spec as { description?: unknown }).description : undefined;
		return isPathKey(key) || (typeof description === "string" && PATH_DESCRIPTION.test(description)) ? [key] : [];
	});
}

/** A string found in the arguments, and whether its property marks it as a path. */
export interface ArgumentString {
	value: string;
	keyed: boolean;
}

/** Every string in the arguments with whether a path-like property (or one of `pathKeys`) holds it. */
export function argumentStrings(args: unknown, pathKeys: readonly string[] = []): ArgumentString[] {
	const marked = new Set(pathKeys);
	const out: ArgumentString[] = [];
	const visit = (value: unknown, keyed: boolean, depth: number) => {
		if (out.length >= MAX_STRINGS || depth > 32) return;
		if (typeof value === "string") out.push({ value, keyed });
		else if (Array.isArray(value)) for (const item of value) visit(item, keyed, depth + 1);
		else if (typeof value === "object" && value !== null) {
			for (const [key, item] of Object.entries(value)) visit(item, isPathKey(key) || (depth === 0 && marked.has(key)), depth + 1);
		}
	};
	visit(args, false, 0);
	return out;
}

/** What a string names: an absolute path (checked against the workspace), or a place outside it known by its text. */
export type NamedPlace = { abs: string; mustExist: boolean } | { outside: string };

/** The place a string names if it can name one (see the rule above), else undefined. */
export function candidatePath(s: ArgumentString, workspace: string): NamedPlace | undefined {
	const text = s.value.trim();
	if (text === "" || text.length > PATH_MAX_CHARS || /[\n\r\0]/.test(text)) return undefined;
	if (text.startsWith("file:")) {
		try {
			return { abs: fileURLToPath(text), mustExist: false };
		} catch {
			return undefined;
		}
	}
	if (/^[a-z][a-z0-9+.-]*:/i.test(text) && !path.isAbsolute(text)) return undefined;
	// A home directory is not the kernel's to know: the name is what makes such a file secret.
	if (text === "~" || text.startsWith("~/")) return { outside: text };
	if (path.isAbsolute(text)) return { abs: path.normalize(text), mustExist: false };
	return { abs: path.resolve(workspace, text), mustExist: !s.keyed };
}
