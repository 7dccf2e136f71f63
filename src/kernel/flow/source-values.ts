/**
 * The secret values a label's file sources hold now. A label stored with a record (a memory note, a
 * tool outcome) says which workspace files its data came from; a later process that recalls the
 * record has never read them, so its redactor does not know their values, and the model may still
 * type one (it saw it in a note, or knew it). Reading those files again, inside the workspace and
 * only when they are secret now, teaches the redactor what to mask. Nothing read here is handed
 * to the model or joins a label: it only narrows what evidence may hold.
 */
import * as path from "node:path";
import { readFile, realpath } from "../../providers/fs-provider.js";
import { sha256Hex } from "../evidence/sha256.js";
import type { Label } from "./label.js";
import { secretValues } from "./secret-values.js";

/** A source file larger than this is not read for its values (a secret file is small). */
export const SOURCE_MAX_BYTES = 1024 * 1024;

export interface SourceFiles {
	/** The workspace's real path. */
	workspace: string;
	/** The file's label now, by its name and the labels recorded on this content. */
	labelOf(rel: string, sha256: string): Promise<Label>;
}

/** A source's path as a workspace-relative path, or undefined when it names no file inside the workspace (`HEAD:.env`, `/etc/x`, `../x`). */
function workspaceRel(ref: string): string | undefined {
	if (ref === "" || path.isAbsolute(ref) || ref.includes(":")) return undefined;
	const rel = path.posix.normalize(ref.replace(/\\/g, "/"));
	return rel === "." || rel === ".." || rel.startsWith("../") ? undefined : rel;
}

/** `seen` keeps the `path@sha256` already read this session, so a recall of many records reads a file once. */
export async function sourceSecretValues(files: SourceFiles, l: Label, seen: Set<string>): Promise<string[]> {
	if (l.sensitivity !== "secret") return [];
	const values: string[] = [];
	for (const source of l.sources) {
		if (source.kind !== "file") continue;
		const rel = workspaceRel(source.ref);
		if (rel === undefined) continue;
		let content: Buffer;
		try {
			// A link is followed only as far as the workspace: a file outside it is not this label's to read.
			const real = await realpath(path.join(files.workspace, rel));
			if (path.relative(files.workspace, real).startsWith("..")) continue;
			content = await readFile(real, { maxBytes: SOURCE_MAX_BYTES });
		} catch {
			// Gone, unreadable, too large or not a file: the stored label still holds, there is only less to mask.
			continue;
		}
		const sha256 = sha256Hex(content);
		const key = `${rel}@${sha256}`;
		if (seen.has(key)) continue;
		seen.add(key);
		if ((await files.labelOf(rel, sha256)).sensitivity !== "secret") continue;
		values.push(...secretValues(rel, content.toString("utf8")));
	}
	return values;
}
