/**
 * The single-writer lease on a state dir: one file, writer.lease, naming the process that writes
 * there. A second writer is refused while that process lives; a lease left by a dead process (a
 * crash) is taken over, and the caller is told whose it was so the takeover can be audited.
 */
import { randomUUID } from "node:crypto";
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname as osHostname } from "node:os";
import { join } from "node:path";
import { oneLine } from "./sqlite-errors.js";
import { StoreError } from "./store.js";

export const LEASE_FILE = "writer.lease";

export interface LeaseHolder {
	pid: number;
	hostname: string;
	/** ISO time the lease was taken. */
	started_at: string;
	/** Unique per taking: tells our lease from a later one by the same pid. */
	token: string;
}

export interface WriterLease {
	readonly path: string;
	readonly holder: LeaseHolder;
	/** The dead holder whose lease this one replaced, if it replaced one. */
	readonly recovered?: LeaseHolder;
	/** Removes the lease file, but only while it still holds this lease's token. */
	release(): void;
}

export interface WriterLeaseOptions {
	pid?: number;
	hostname?: string;
	now?: () => Date;
	/** Whether a process of this host is alive; tests pin it. */
	isAlive?: (pid: number) => boolean;
}

/** Each round either takes the lease, refuses, or clears one stale lease; a few rounds settle any race. */
const MAX_ROUNDS = 5;

/** Takes the lease on stateDir (which must exist) or throws a one-line StoreError naming the holder. */
export function acquireWriterLease(stateDir: string, options: WriterLeaseOptions = {}): WriterLease {
	const path = join(stateDir, LEASE_FILE);
	const isAlive = options.isAlive ?? processAlive;
	const holder: LeaseHolder = {
		pid: options.pid ?? process.pid,
		hostname: options.hostname ?? osHostname(),
		started_at: (options.now ?? (() => new Date()))().toISOString(),
		token: randomUUID(),
	};
	let recovered: LeaseHolder | undefined;
	for (let round = 0; round < MAX_ROUNDS; round++) {
		if (createExclusive(path, holder, stateDir)) {
			return { path, holder, ...(recovered ? { recovered } : {}), release: () => releaseLease(path, holder.token) };
		}
		const current = readHolder(path, stateDir);
		if (current === undefined) continue;
		// Another host's pid cannot be probed from here: its lease counts as live (fail closed).
		if (current.hostname !== holder.hostname || isAlive(current.pid)) throw inUse(stateDir, current, holder.hostname);
		if (moveAsideIfStill(path, current, stateDir)) recovered = current;
	}
	throw new StoreError(`state dir ${stateDir}: could not take the writer lease (${LEASE_FILE} kept changing); try again`);
}

export function inUseMessage(stateDir: string, current: LeaseHolder, ownHost: string): string {
	const where = current.hostname === ownHost ? "" : ` on ${current.hostname}`;
	return `state dir ${stateDir} is in use by another Warden process (pid ${current.pid}${where} since ${current.started_at}); wait for it to finish or use another --state-dir`;
}

function inUse(stateDir: string, current: LeaseHolder, ownHost: string): StoreError {
	return new StoreError(inUseMessage(stateDir, current, ownHost));
}

/**
 * Writes the lease in full to a private file, then hard-links it into place: the link fails if a
 * lease exists, and a crash can never leave a half-written lease under the real name.
 */
function createExclusive(path: string, holder: LeaseHolder, stateDir: string): boolean {
	const draft = `${path}.${holder.token}.draft`;
	try {
		writeFileSync(draft, `${JSON.stringify(holder)}\n`, { flag: "wx" });
	} catch (error) {
		throw new StoreError(`state dir ${stateDir}: cannot write the writer lease (${oneLine(error)})`);
	}
	try {
		linkSync(draft, path);
		return true;
	} catch (error) {
		if (codeOf(error) === "EEXIST") return false;
		throw new StoreError(`state dir ${stateDir}: cannot take the writer lease (${oneLine(error)})`);
	} finally {
		removeQuietly(draft);
	}
}

/**
 * Renames the stale lease to a private name, then checks that what moved is the lease judged
 * stale: two processes recovering at once cannot both win, and a fresh lease that slipped in
 * between is put back.
 */
function moveAsideIfStill(path: string, stale: LeaseHolder, stateDir: string): boolean {
	const aside = `${path}.${randomUUID()}.stale`;
	try {
		renameSync(path, aside);
	} catch (error) {
		if (codeOf(error) === "ENOENT") return false;
		throw new StoreError(`state dir ${stateDir}: cannot recover the stale writer lease (${oneLine(error)})`);
	}
	try {
		const moved = readHolder(aside, stateDir);
		if (moved?.token === stale.token) return true;
		try {
			linkSync(aside, path);
		} catch {
			// A third process took the lease in the gap; the one we moved was live, and its owner's release is a no-op now.
		}
		return false;
	} finally {
		removeQuietly(aside);
	}
}

/** The lease's holder; undefined when the file is gone. An unreadable lease is refused, not guessed at. */
function readHolder(path: string, stateDir: string): LeaseHolder | undefined {
	let text: string;
	try {
		text = readFileSync(path, "utf8");
	} catch (error) {
		if (codeOf(error) === "ENOENT") return undefined;
		throw new StoreError(`state dir ${stateDir}: cannot read the writer lease ${LEASE_FILE} (${oneLine(error)})`);
	}
	const holder = parseHolder(text);
	if (!holder) {
		throw new StoreError(
			`state dir ${stateDir}: the writer lease ${LEASE_FILE} is unreadable; if no Warden process uses this dir, delete that file`,
		);
	}
	return holder;
}

function parseHolder(text: string): LeaseHolder | undefined {
	try {
		const value = JSON.parse(text) as Partial<LeaseHolder> | null;
		if (
			value !== null &&
			typeof value === "object" &&
			Number.isInteger(value.pid) &&
			typeof value.hostname === "string" &&
			typeof value.started_at === "string" &&
			typeof value.token === "string"
		) {
			return { pid: value.pid as number, hostname: value.hostname, started_at: value.started_at, token: value.token };
		}
	} catch {
		// Falls through to "unreadable".
	}
	return undefined;
}

function releaseLease(path: string, token: string): void {
	let text: string;
	try {
		text = readFileSync(path, "utf8");
	} catch {
		return;
	}
	if (parseHolder(text)?.token !== token) return;
	removeQuietly(path);
}

/** EPERM means the process exists but belongs to someone else: alive. */
function processAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return codeOf(error) !== "ESRCH";
	}
}

function removeQuietly(path: string): void {
	try {
		unlinkSync(path);
	} catch {
		// Already gone.
	}
}

function codeOf(error: unknown): unknown {
	return (error as { code?: unknown } | null)?.code;
}
