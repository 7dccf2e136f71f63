/**
 * The capability layer at the primitive. Every kernel primitive asks it before touching anything:
 *
 * 1. a matching deny grant refuses (explicit deny beats any allow);
 * 2. an access outside the task ceiling refuses (a broad grant cannot exceed a narrow ceiling);
 * 3. otherwise a live allow or ask grant must match — not expired, not used up, its constraints
 *    met — or the access is refused: no grant means no authority (fail closed), and a permissive
 *    ceiling creates none.
 *
 * An `ask` grant is satisfied only by the tool-level decision already taken for this call: it
 * admits when that decision was `ask` and the host approved the call, and refuses when the call
 * was admitted without anyone being asked. Nothing at the primitive prompts.
 *
 * Expiry and use counts limit what a grant admits; a deny grant admits nothing, so neither weakens
 * it. A use is spent when the primitive is admitted, before it runs.
 *
 * A counted grant delegated from a counted grant of the parent authority shares the parent's
 * count: each use spends along the whole delegation chain, so a parent and its descendants
 * together never spend more than the original count.
 */
import type { PathScope } from "../admission/command-paths.js";
import type { IdentityScope } from "../admission/program-identity.js";
import type { ShellParse } from "../admission/shell/shell-parses.js";
import { CapabilityDeniedError, type DenialReason } from "./authority-errors.js";
import type { GrantUse } from "../operations/operation-types.js";
import type { Capability } from "./capability.js";
import { type AccessRequest, shellRequests } from "./resource.js";
import { CeilingIndex } from "./ceiling-index.js";
import { GrantIndex } from "./grant-index.js";
import { shellWriteRequests } from "./shell-write-requests.js";
import { type TaskCeiling, taskCeiling } from "./task-ceiling.js";

export interface AuthorityOptions {
	grants: readonly Capability[];
	ceiling?: TaskCeiling;
	/** Parses shell commands into sub-commands (a session's shared parses); without it a command is one resource, as written. */
	shell?: ShellParse;
	/** Where bare program names are found, so a `read_only_commands` grant admits only the system's readers. */
	identity?: IdentityScope;
	/** Milliseconds since the epoch; injectable for tests. */
	now?: () => number;
	/** The authority these grants were delegated from; counted grants share their parent grant's count. */
	parent?: Authority;
}

/** Uses left on one counted grant; `up` is its parent grant's counter, spent with it. */
interface UseCounter {
	left: number;
	up?: UseCounter;
	/** Which grant this counter counts, as a durable record names it. */
	use: GrantUse;
}

/** How one call reached its primitives. */
export interface CallContext {
	/** The tool-level decision was `ask` and the host approved this call. */
	approved: boolean;
}

/** The authority as one call's primitives see it. */
export interface CallAuthority {
	/** Admits every request or none, spending uses only when all are admitted; throws CapabilityDeniedError. */
	admit(requests: readonly AccessRequest[]): void;
	/** Whether a request would be admitted now; spends nothing and records nothing. */
	permits(request: AccessRequest): boolean;
	/**
	 * The shell requests a command makes: one per sub-command; with the workspace's scope, also an
	 * fs write or delete per file it visibly writes there.
	 */
	shellRequests(command: string, scope?: PathScope): AccessRequest[];
	/** Refusals so far, in order, for the call's evidence. */
	readonly refusals: readonly CapabilityDeniedError[];
	/**
	 * The counted-grant uses admissions spent since the last take (one per counter along each
	 * delegation chain): the next protected operation's intent records them durably.
	 */
	takeUses(): GrantUse[];
}

type Choice = { ok: true; grant: Capability } | { ok: false; error: CapabilityDeniedError };

export class Authority {
	readonly grants: readonly Capability[];
	readonly ceiling: TaskCeiling;
	private readonly index: GrantIndex;
	private readonly ceilingIndex: CeilingIndex;
	private readonly remaining = new Map<string, UseCounter>();
	private readonly now: () => number;
	private readonly shell: ShellParse | undefined;
	readonly identity: IdentityScope | undefined;

	constructor(options: AuthorityOptions) {
		const seen = new Set<string>();
		for (const g of options.grants) {
			if (seen.has(g.id)) throw new RangeError(`two grants share the id ${g.id}`);
			seen.add(g.id);
			if (g.uses === undefined) continue;
			const up = g.parent === undefined ? undefined : options.parent?.remaining.get(g.parent);
			const use = { holder: g.holder, grant: g.id };
			this.remaining.set(g.id, up ? { left: g.uses, up, use } : { left: g.uses, use });
		}
		// A copy, frozen: the index is built once over exactly the grants this authority holds.
		this.grants = Object.freeze([...options.grants]);
		this.index = new GrantIndex(this.grants);
		this.ceiling = options.ceiling ?? taskCeiling();
		this.ceilingIndex = new CeilingIndex(this.ceiling);
		this.now = options.now ?? Date.now;
		this.shell = options.shell;
		this.identity = options.identity;
	}

	/** Uses left on a counted grant, its ancestors' counts included; undefined for a grant without a count. */
	usesLeft(id: string): number | undefined {
		let counter = this.remaining.get(id);
		if (!counter) return undefined;
		let left = counter.left;
		for (counter = counter.up; counter; counter = counter.up) left = Math.min(left, counter.left);
		return left;
	}

	/**
	 * Counts uses earlier runs of this session spent (read back from its operations' intents) as
	 * spent here too; a use of another holder's grant, or of a grant this authority does not
	 * count, changes nothing. A count never goes below zero.
	 */
	markSpent(uses: readonly GrantUse[]): void {
		for (const use of uses) {
			const counter = this.remaining.get(use.grant);
			if (counter && counter.use.holder === use.holder && counter.left > 0) counter.left--;
		}
	}

	forCall(call: CallContext): CallAuthority {
		const refusals: CapabilityDeniedError[] = [];
		let untaken: GrantUse[] = [];
		return {
			admit: (requests) => {
				try {
					for (const grant of this.admit(requests, call)) {
						for (let c = this.remaining.get(grant.id); c; c = c.up) untaken.push({ ...c.use });
					}
				} catch (err) {
					if (err instanceof CapabilityDeniedError) refusals.push(err);
					throw err;
				}
			},
			permits: (request) => this.choose(request, call, new Map()).ok,
			shellRequests: (command, scope) => this.shellRequests(command, scope),
			refusals,
			takeUses: () => {
				const taken = untaken;
				untaken = [];
				return taken;
			},
		};
	}

	shellRequests(command: string, scope?: PathScope): AccessRequest[] {
		if (!this.shell) return [{ resource: `shell:${command.trim()}`, right: "exec", readOnlyCommand: false }];
		const parsed = this.shell.parse(command);
		return scope ? [...shellRequests(parsed, this.identity), ...shellWriteRequests(parsed, scope)] : shellRequests(parsed, this.identity);
	}

	/** Admits all requests or throws the first refusal; uses are spent only when all are admitted. */
	admit(requests: readonly AccessRequest[], call: CallContext): Capability[] {
		const spent = new Map<UseCounter, number>();
		const chosen: Capability[] = [];
		for (const request of requests) {
			const choice = this.choose(request, call, spent);
			if (!choice.ok) throw choice.error;
			chosen.push(choice.grant);
			for (let c = this.remaining.get(choice.grant.id); c; c = c.up) spent.set(c, (spent.get(c) ?? 0) + 1);
		}
		for (const [counter, n] of spent) counter.left -= n;
		return chosen;
	}

	private choose(request: AccessRequest, call: CallContext, spent: ReadonlyMap<UseCounter, number>): Choice {
		const refuse = (reason: DenialReason, why: string, grant?: string): Choice => ({
			ok: false,
			error: new CapabilityDeniedError(request.resource, request.right, reason, why, this.ceiling.hash, grant),
		});
		const matching = this.index.matching(request);
		const deny = matching.find((g) => g.effect === "deny");
		if (deny) return refuse("denied", `denied by grant ${deny.id} (${deny.resource})`, deny.id);
		if (!this.ceilingIndex.permits(request)) return refuse("ceiling", `outside the task ceiling ${this.ceiling.hash.slice(0, 12)}`);

		let firstMiss: Choice | undefined;
		let counted: Capability | undefined;
		for (const g of matching) {
			const miss = this.miss(g, request, call, spent);
			if (miss) {
				firstMiss ??= refuse(miss.reason, miss.why, g.id);
				continue;
			}
			// A grant without a count is preferred, so counted uses are spent only when nothing else admits.
			if (g.uses === undefined) return { ok: true, grant: g };
			counted ??= g;
		}
		if (counted) return { ok: true, grant: counted };
		return firstMiss ?? refuse("no-grant", "no grant covers it");
	}

	private miss(g: Capability, request: AccessRequest, call: CallContext, spent: ReadonlyMap<UseCounter, number>): { reason: DenialReason; why: string } | undefined {
		if (g.expires_at !== undefined && Date.parse(g.expires_at) <= this.now()) return { reason: "expired", why: `grant ${g.id} expired at ${g.expires_at}` };
		const own = this.remaining.get(g.id);
		if (own && own.left - (spent.get(own) ?? 0) <= 0) return { reason: "used-up", why: `grant ${g.id} is used up (${g.uses} use${g.uses === 1 ? "" : "s"})` };
		for (let c = own?.up; c; c = c.up) {
			if (c.left - (spent.get(c) ?? 0) <= 0) return { reason: "used-up", why: `grant ${g.id} is used up: the grant it was delegated from has no uses left` };
		}
		const c = g.constraints;
		if (c?.max_bytes !== undefined && !(request.bytes !== undefined && request.bytes <= c.max_bytes)) {
			return { reason: "constraint", why: `grant ${g.id} admits at most ${c.max_bytes} bytes${request.bytes === undefined ? "" : `, not ${request.bytes}`}` };
		}
		if (c?.read_only_commands && request.readOnlyCommand !== true) return { reason: "constraint", why: `grant ${g.id} admits only read-only commands` };
		if (g.effect === "ask" && !call.approved) return { reason: "not-approved", why: `grant ${g.id} needs the host's approval, and this call was not asked about` };
		return undefined;
	}
}
