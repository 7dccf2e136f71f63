/**
 * Labels an MCP result by the files its call's arguments name (argument-paths.ts has the rule):
 * each named file's label (its name, and what this session recorded on that path) joins the
 * result's, and a secret one teaches the redactor its values — from the file itself when it lies
 * in the workspace, else from the result that carries it. A link is labelled by its target too.
 */
import * as path from "node:path";
import { lstatIfExistsNow, readFile, realpathNow } from "../../providers/fs-provider.js";
import type { CallFlow } from "../flow/flow-types.js";
import type { Label } from "../flow/label.js";
import type { WorkspaceRoot } from "../workspace-paths.js";
import { argumentStrings, candidatePath } from "./argument-paths.js";

/** A secret file's content read for its values; a larger one teaches the redactor from the result. */
const SECRET_READ_MAX_BYTES = 1024 * 1024;

/** `abs` relative to the workspace, or undefined when it lies outside. */
function inside(root: WorkspaceRoot, abs: string): string | undefined {
	for (const base of [root.real, root.given]) {
		const rel = path.relative(base, abs);
		if (rel === "") return ".";
		if (!rel.startsWith("..") && !path.isAbsolute(rel)) return rel.split(path.sep).join("/");
	}
	return undefined;
}

/** The places (workspace-relative paths, or outside ones as given) the arguments name, the real target of a link included. */
export function namedPlaces(args: unknown, pathKeys: readonly string[], root: WorkspaceRoot): { ref: string; abs?: string }[] {
	const out = new Map<string, { ref: string; abs?: string }>();
	const add = (abs: string) => {
		const rel = inside(root, abs);
		out.set(rel ?? abs, rel === undefined ? { ref: abs } : { ref: rel, abs: path.join(root.real, rel) });
	};
	for (const s of argumentStrings(args, pathKeys)) {
		const place = candidatePath(s, root.real);
		if (place === undefined) continue;
		if ("outside" in place) {
			out.set(place.outside, { ref: place.outside });
			continue;
		}
		let exists: boolean;
		try {
			exists = lstatIfExistsNow(place.abs) !== null;
		} catch {
			exists = false;
		}
		if (place.mustExist && !exists) continue;
		add(place.abs);
		if (!exists) continue;
		try {
			add(realpathNow(place.abs));
		} catch {
			// A dangling link names nothing more than itself.
		}
	}
	return [...out.values()];
}

/** Joins the named files' labels into the call's result, teaching the redactor each secret one's values. */
export async function observeNamedFiles(flow: CallFlow, args: unknown, pathKeys: readonly string[], root: WorkspaceRoot, resultText: string): Promise<Label[]> {
	const secret: Label[] = [];
	for (const place of namedPlaces(args, pathKeys, root)) {
		const l = await flow.pathLabel(place.ref);
		if (l.sensitivity !== "secret") {
			flow.observe(l);
			continue;
		}
		secret.push(l);
		let content = resultText;
		if (place.abs !== undefined) {
			try {
				content = (await readFile(place.abs, { maxBytes: SECRET_READ_MAX_BYTES })).toString("utf8");
			} catch {
				// Not a readable regular file (a directory, too large, gone): the result is what carries it.
			}
		}
		flow.observe(l, content);
	}
	return secret;
}
