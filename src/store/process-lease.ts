/**
 * Process leases: each writing process holds one row in process_leases, naming it by pid, the
 * pid's start time, host and a heartbeat. Sessions and operations name the lease that owns them,
 * so many processes can write one state dir and recovery settles only what a gone holder left.
 */
import { readFileSync } from "node:fs";

export interface LeaseHolder {
	/** Unique per lease taken: tells this lease from a later one by the same pid. */
	token: string;
	pid: number;
	/** The pid's start time as the OS gives it (Linux: /proc/<pid>/stat field 22); absent where unknown. */
	pid_start?: string;
	hostname: string;
	/** ISO time the lease was taken. */
	started_at: string;
	/** ISO time of the holder's last heartbeat. */
	heartbeat_at: string;
}

/** How this process tells whether another holder is still there; tests pin it. */
export interface LivenessProbe {
	hostname: string;
	/** Whether a process of this host with that pid exists. */
	isAlive(pid: number): boolean;
	/** That pid's start time now, or undefined where the OS does not say. */
	startTime(pid: number): string | undefined;
	now(): Date;
	/** A heartbeat older than this marks a holder gone where its pid cannot settle it. */
	staleAfterMs: number;
}

/** Why a holder counts as gone; undefined while it is live. */
export type GoneReason = "the process is gone" | "its pid now belongs to another process" | "its heartbeat expired";

/** How often a holder refreshes its heartbeat; a tenth of the default bound. */
export const HEARTBEAT_MS = 10_000;
/** A heartbeat this old, where the pid cannot settle it (another host, no start time), means gone. */
export const STALE_AFTER_MS = 120_000;

/**
 * Judges a holder. A live pid whose start time matches is live whatever its heartbeat says
 * (a busy process is not a dead one: fail closed); another host's pid cannot be probed, so
 * there only the heartbeat speaks.
 */
export function goneReason(holder: LeaseHolder, probe: LivenessProbe): GoneReason | undefined {
	const expired = probe.now().getTime() - Date.parse(holder.heartbeat_at) > probe.staleAfterMs;
	if (holder.hostname !== probe.hostname) return expired ? "its heartbeat expired" : undefined;
	if (!probe.isAlive(holder.pid)) return "the process is gone";
	const current = holder.pid_start === undefined ? undefined : probe.startTime(holder.pid);
	if (holder.pid_start !== undefined && current !== undefined) {
		return current === holder.pid_start ? undefined : "its pid now belongs to another process";
	}
	return expired ? "its heartbeat expired" : undefined;
}

/** The one line a process gets when what it wants is held by another live process. */
export function heldByMessage(what: string, holder: LeaseHolder, ownHost: string): string {
	const where = holder.hostname === ownHost ? "" : ` on ${holder.hostname}`;
	return `${what} is in use by another Warden process (pid ${holder.pid}${where} since ${holder.started_at})`;
}

/** EPERM means the process exists but belongs to someone else: alive. */
export function processAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as { code?: unknown } | null)?.code !== "ESRCH";
	}
}

/**
 * The pid's start time in clock ticks since boot, from /proc/<pid>/stat; undefined off Linux
 * or when the process is gone. The command name (field 2) may hold spaces and parentheses, so
 * fields are counted from the last ')'.
 */
export function processStartTime(pid: number): string | undefined {
	let text: string;
	try {
		text = readFileSync(`/proc/${pid}/stat`, "utf8");
	} catch {
		return undefined;
	}
	const close = text.lastIndexOf(")");
	if (close < 0) return undefined;
	// After ')': field 3 (state) is index 0, so field 22 (starttime) is index 19.
	const start = text.slice(close + 2).split(" ")[19];
	return start !== undefined && /^\d+$/.test(start) ? start : undefined;
}
