/**
 * The canonical resource of a call and a digest of the state it would act on, taken when the host
 * is asked and again when the call is dispatched: a lease is only good while the two agree. Read
 * only: nothing here changes the workspace or records an effect.
 */
import { createHash } from "node:crypto";
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import { FileTooLargeError, lstatIfExists, readFile } from "../../providers/fs-provider.js";
import type { RuleSubject, SubcommandDecision } from "../admission/types.js";
import { canonicalJson } from "../evidence/audit-chain.js";
import { resolveWorkspacePath, workspaceRoot } from "../workspace-paths.js";

export interface TargetState {
	/** Workspace-relative real path, normalized command, or the subject as given. */
	resource: string;
	kind: "file" | "command" | "other";
	/** sha256 of the file's content, `absent`, or a marker for what cannot be hashed; see ApprovalRequest.targetDigest. */
	digest: string;
	/** A file target's current text, null when the file does not exist; undefined when it cannot be read as text. */
	content?: string | null;
}

/** The largest file whose content is hashed; past it the digest is its size, which still changes with most writes. */
const HASH_MAX_BYTES = 16 * 1024 * 1024;
const DIFF_TIMEOUT_MS = 2_000;

export function sha256(data: string | Buffer): string {
	return createHash("sha256").update(data).digest("hex");
}

/** sha256 of the canonical JSON of a call's arguments. */
export function argumentsDigest(args: unknown): string {
	return sha256(canonicalJson(args));
}

/**
 * The normalized command of a shell call: its sub-commands as the policy read them, joined with
 * `; `. It names no workspace path, so the same command has the same digest in any workspace.
 */
export function normalizedCommand(command: string, subcommands: readonly SubcommandDecision[] | undefined): string {
	if (!subcommands || subcommands.length === 0) return command.trim();
	return subcommands.map((s) => s.command).join("; ");
}

export async function describeTarget(
	workspace: string,
	subject: RuleSubject | undefined,
	subcommands?: readonly SubcommandDecision[],
): Promise<TargetState> {
	if (subject?.kind === "command") {
		const resource = normalizedCommand(subject.value, subcommands);
		return { resource, kind: "command", digest: sha256(`command\0${resource}`) };
	}
	if (subject?.kind !== "path") {
		const resource = subject?.value ?? "";
		return { resource, kind: "other", digest: sha256(`other\0${resource}`) };
	}
	let rel: string;
	let abs: string;
	try {
		({ rel, abs } = await resolveWorkspacePath(await workspaceRoot(workspace), subject.value));
	} catch {
		// The primitive will refuse this path; nothing can change under it meanwhile.
		return { resource: subject.value, kind: "file", digest: "unresolvable" };
	}
	const st = await lstatIfExists(abs);
	if (!st) return { resource: rel, kind: "file", digest: "absent", content: null };
	if (st.type !== "file") return { resource: rel, kind: "file", digest: `not-a-file:${st.type}` };
	let buf: Buffer;
	try {
		buf = await readFile(abs, { maxBytes: Math.min(st.size + 64 * 1024, HASH_MAX_BYTES) });
	} catch (err) {
		if (err instanceof FileTooLargeError) return { resource: rel, kind: "file", digest: `large:${err.size}` };
		return { resource: rel, kind: "file", digest: "unreadable" };
	}
	const state: TargetState = { resource: rel, kind: "file", digest: sha256(buf) };
	if (!buf.includes(0)) state.content = buf.toString("utf8");
	return state;
}

/** The unified diff a write would make, or a one-line note when it cannot be computed. */
export function previewDiff(rel: string, before: string | null, after: string): string {
	const patch = createTwoFilesPatch(`a/${rel}`, `b/${rel}`, before ?? "", after, undefined, undefined, {
		headerOptions: FILE_HEADERS_ONLY,
		timeout: DIFF_TIMEOUT_MS,
	});
	return patch ?? `--- a/${rel}\n+++ b/${rel}\n(diff omitted: the change was too large to compute)\n`;
}
