/**
 * The fs requests a shell command makes besides its `shell:` ones: one `fs:<path>` write (or
 * delete) per file it visibly writes inside the workspace, on the path's real target, as the fs
 * primitives name it. A grant set or task ceiling that withholds write on a path then refuses
 * `echo x > that` at the shell primitive too, not only `write_file that`. Targets outside the
 * workspace have no fs resource (the permission decision and the sandbox answer for those), and a
 * target only known at run time cannot be named before it runs.
 */
import { type PathScope, possibleCwds } from "../admission/command-paths.js";
import type { ParsedShell } from "../admission/shell/shell-types.js";
import { writeTargets } from "../admission/shell/write-targets.js";
import { targetPlaces } from "../admission/target-paths.js";
import { type AccessRequest, fsResource } from "./resource.js";

export function shellWriteRequests(parsed: ParsedShell, scope: PathScope): AccessRequest[] {
	const out = new Map<string, AccessRequest>();
	for (const c of parsed.commands) {
		const cwds = possibleCwds(c, parsed, scope);
		for (const t of writeTargets(c)) {
			if (!t.path.static) continue;
			const right = t.kind === "delete" ? "delete" : "write";
			for (const place of targetPlaces(t.path, cwds, scope)) {
				if (!place.inside || place.relative === undefined) continue;
				const request: AccessRequest = { resource: fsResource(place.relative), right };
				out.set(`${request.resource}\0${right}`, request);
			}
		}
	}
	return [...out.values()];
}
