/** An effect a primitive performed, handed to evidence before the primitive returns. */

export type EffectKind = "fs.write" | "fs.delete" | "shell.exec" | "net.fetch" | "mcp.call" | "memory.write" | "memory.forget";

export interface EffectRecord {
	call_id: string;
	effect: EffectKind;
	/** Canonical resource: `fs:<workspace-relative path>`, `shell:<command>` or `net:<origin>`. */
	resource: string;
	/**
	 * Details: for fs.write {created, bytes, diff, sha256_before, sha256_after}; for fs.delete {type,
	 * bytes, sha256, diff, symlink_target?}; for shell.exec {command, exit_code, signal, timed_out,
	 * cancelled, duration_ms, truncated}; for net.fetch {url, method, outcome, request_bytes,
	 * response_bytes, truncated, status?, duration_ms?, error?}.
	 */
	data: Record<string, unknown>;
}

/** Durably records an effect (audit + event); resolves once it is committed. */
export type EffectSink = (effect: EffectRecord) => Promise<void>;
