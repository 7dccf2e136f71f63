/** What `warden undo` is asked to put back, and what it reports. */
import type { ProtectedPaths } from "../kernel/protected/protected-paths.js";

/** A whole session (with the sessions its sub-agents ran), or one call of it. */
export type UndoTarget = { session: string } | { call: string; session?: string };

export interface UndoOptions {
	/** Only say what would be restored or refused; nothing is changed and no session is recorded. */
	dryRun?: boolean;
	/** The host's protected paths (default: the built-in registry): never restored by undo on its own. */
	protectedPaths?: ProtectedPaths;
}

/** A file put back (or, in a dry run, that would be). */
export interface RestoredFile {
	path: string;
	/** `written`: the earlier content was written back; `deleted`: the agent created it, so it was removed. */
	action: "written" | "deleted";
	/** The operation whose before-image was restored: the target's first change to the path. */
	restores: string;
	/** The undo session's call that restored it; absent in a dry run. */
	call?: string;
	/** The seq of the restore's own effect audit record (`warden explain #<seq>`); absent in a dry run. */
	effect_seq?: number;
}

/** A memory record the target wrote, forgotten by undo (or, in a dry run, that would be). */
export interface ForgottenRecord {
	id: string;
	/** `memory:<scope>/<namespace>`. */
	resource: string;
	/** The call that wrote it, and the seq of that write's effect audit record. */
	written_by: { session: string; call: string; effect_seq: number };
	/** The records its write had marked stale, now live again (in a dry run: those it would try). */
	restored: string[];
	/** The undo session's call that forgot it; absent in a dry run. */
	call?: string;
	/** The seq of the forget's own effect audit record; absent in a dry run. */
	effect_seq?: number;
}

/** A file (or `memory record <id>`) left as it is, with the one-line reason (it starts with the path). */
export interface RefusedFile {
	path: string;
	reason: string;
}

export interface UndoResult {
	/** The session undone, and the call when only one call was. */
	target: { session: string; call?: string };
	dry_run: boolean;
	/** The governed session that ran the restores; absent in a dry run or when nothing was to be restored. */
	session?: string;
	restored: RestoredFile[];
	/** Memory records the target wrote, newest first. */
	forgotten: ForgottenRecord[];
	refused: RefusedFile[];
	/** Paths (and `memory record <id>`s) the target changed that are already as they were before it (nothing to do). */
	unchanged: string[];
}

/** The target names no session or call, or a call several sessions hold: a usage error. */
export class UndoTargetError extends Error {
	override name = "UndoTargetError";
}
