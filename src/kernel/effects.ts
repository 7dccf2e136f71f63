/** An effect a primitive performed, handed to evidence before the primitive returns. */

export type EffectKind = "fs.write" | "shell.exec";

export interface EffectRecord {
	call_id: string;
	effect: EffectKind;
	/** Canonical resource: `fs:<workspace-relative path>` or `shell:<command>`. */
	resource: string;
	/** Details: for fs.write {created, bytes, diff, sha256_before, sha256_after}; for shell.exec {command, exit_code, signal, timed_out, cancelled, duration_ms, truncated}. */
	data: Record<string, unknown>;
}

/** Durably records an effect (audit + event); resolves once it is committed. */
export type EffectSink = (effect: EffectRecord) => Promise<void>;
