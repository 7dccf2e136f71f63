/**
 * Exact one-shot releases. A human approves one payload (by digest) to one sink for one operation
 * under one ceiling and one registry generation; the first use that presents anything else burns
 * it, and a used release is never accepted again, so an approval cannot be replayed or moved.
 */
import { randomUUID } from "node:crypto";
import { ReleaseRefusedError } from "./flow-errors.js";
import type { ReleaseBinding, ReleaseRequest, SinkTrust } from "./flow-types.js";

/** What the runtime shows beside the binding. */
export interface ReleaseExtras {
	trust: SinkTrust;
	why: string;
	preview: string;
}

/** The fields checked at use; the label is what the human saw, not something the use presents. */
export type ReleaseUse = Omit<ReleaseBinding, "label">;

export interface ReleaseLedgerOptions {
	now?: () => number;
	/** How long a request (and the release it becomes) stays usable. */
	ttlMs?: number;
	/** `rel_1`, `rel_2` … instead of random ids (tests, readable transcripts). */
	sequentialIds?: boolean;
}

/** `burnt`: presented for another use or too late; unlike `spent`, it can never be given back. */
type State = "asked" | "granted" | "spent" | "burnt";

interface Entry {
	request: ReleaseRequest;
	state: State;
}

export const DEFAULT_RELEASE_TTL_MS = 15 * 60_000;

const BOUND_FIELDS = ["session", "call_id", "operation", "sink", "payload_sha256", "ceiling_hash", "registry_generation"] as const;

export class ReleaseLedger {
	private readonly entries = new Map<string, Entry>();
	private readonly now: () => number;
	private readonly ttlMs: number;
	private readonly sequential: boolean;
	private counter = 0;

	constructor(opts: ReleaseLedgerOptions = {}) {
		this.now = opts.now ?? Date.now;
		this.ttlMs = opts.ttlMs ?? DEFAULT_RELEASE_TTL_MS;
		this.sequential = opts.sequentialIds ?? false;
	}

	/** A request to show a human; nothing is released until grant(). */
	request(binding: ReleaseBinding, extras: ReleaseExtras): ReleaseRequest {
		this.counter++;
		const id = this.sequential ? `rel_${this.counter}` : `rel_${randomUUID()}`;
		const request: ReleaseRequest = {
			...binding,
			id,
			trust: extras.trust,
			why: extras.why,
			preview: extras.preview,
			expires_at: new Date(this.now() + this.ttlMs).toISOString(),
		};
		this.entries.set(id, { request, state: "asked" });
		return request;
	}

	/** The human approved this request. */
	grant(request: ReleaseRequest | string): void {
		const id = typeof request === "string" ? request : request.id;
		const entry = this.entries.get(id);
		if (entry === undefined) throw new ReleaseRefusedError(`unknown release ${id}`);
		if (entry.state !== "asked") throw new ReleaseRefusedError(`release ${id} was already ${entry.state === "granted" ? "granted" : "used"}`);
		if (this.expired(entry)) throw new ReleaseRefusedError(`release ${id} expired at ${entry.request.expires_at}`);
		entry.state = "granted";
	}

	/** Spends a granted release for exactly the use it was bound to; any other use burns it. */
	consume(id: string, use: ReleaseUse): ReleaseRequest {
		const entry = this.entries.get(id);
		if (entry === undefined) throw new ReleaseRefusedError(`unknown release ${id}`);
		if (entry.state === "spent" || entry.state === "burnt") throw new ReleaseRefusedError(`release ${id} was already used`);
		if (entry.state === "asked") throw new ReleaseRefusedError(`release ${id} was not granted`);
		entry.state = "burnt";
		if (this.expired(entry)) throw new ReleaseRefusedError(`release ${id} expired at ${entry.request.expires_at}`);
		const bound = entry.request;
		for (const field of BOUND_FIELDS) {
			if (bound[field] !== use[field]) {
				throw new ReleaseRefusedError(`release ${id} was granted for ${field} ${show(bound[field])}, not ${show(use[field])}`);
			}
		}
		entry.state = "spent";
		return bound;
	}

	/**
	 * Gives back a release whose operation was certified never to have started: it becomes usable
	 * again, still once. Returns false when there is nothing to give back.
	 */
	release(id: string): boolean {
		const entry = this.entries.get(id);
		if (entry === undefined || entry.state !== "spent" || this.expired(entry)) return false;
		entry.state = "granted";
		return true;
	}

	/** The granted, unspent release for exactly this use, if any (without spending it). */
	find(use: ReleaseUse): ReleaseRequest | undefined {
		for (const entry of this.entries.values()) {
			if (entry.state === "granted" && !this.expired(entry) && BOUND_FIELDS.every((f) => entry.request[f] === use[f])) return entry.request;
		}
		return undefined;
	}

	/** Releases granted and not yet used. */
	get outstanding(): number {
		let n = 0;
		for (const entry of this.entries.values()) if (entry.state === "granted" && !this.expired(entry)) n++;
		return n;
	}

	private expired(entry: Entry): boolean {
		return this.now() >= Date.parse(entry.request.expires_at);
	}
}

function show(value: string | undefined): string {
	if (value === undefined) return "(none)";
	// Digests are long; twelve hex digits name one well enough in a message.
	return /^[0-9a-f]{64}$/.test(value) ? `${value.slice(0, 12)}…` : value;
}
