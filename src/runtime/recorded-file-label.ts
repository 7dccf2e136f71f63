/**
 * The label the flow plane recorded on a workspace file's content when it was written (by any
 * writer: file tools, shell, JIT, MCP), for what a session loads as the model's instructions
 * before any tool runs: AGENTS.md, a workspace SKILL.md. A file outside the workspace has none.
 */
import { isAbsolute, relative, sep } from "node:path";
import { toLabel } from "../kernel/evidence/store-rows.js";
import type { Label } from "../kernel/flow/label.js";
import type { Store } from "../store/store.js";

export type FileLabelReader = Pick<Store, "getFileLabel">;

/** `workspace`: the workspace's real path (the key file labels are stored under); `path`: absolute. */
export async function recordedFileLabel(store: FileLabelReader, workspace: string, path: string, sha256: string): Promise<Label | undefined> {
	const rel = relative(workspace, path);
	if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return undefined;
	return toLabel(await store.getFileLabel({ workspace, path: rel.split(sep).join("/"), sha256 }));
}
