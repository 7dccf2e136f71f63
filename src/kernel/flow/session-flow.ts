/**
 * One session's flow state: the label of the model's context, the labels written to files, the
 * exact releases granted, and the admission of every egress against the sink registry and the
 * task ceiling. A call's arguments carry the context label as it was when the model proposed it;
 * what the call reads joins its result, and that result joins the context only when it enters it.
 */
import type { TaskCeiling } from "../authority/task-ceiling.js";
import { canonicalJson } from "../evidence/audit-chain.js";
import { sha256Hex as sha256 } from "../evidence/sha256.js";
import type { Store } from "../../store/store.js";
import { describeClearance, describeData, flowVerdict } from "./egress-admission.js";
import { FlowDeniedError, ReleaseRefusedError } from "./flow-errors.js";
import type {
	CallFlow,
	EgressRequest,
	FlowDecision,
	FlowDecisionRecord,
	FlowOperation,
	FlowVerdict,
	ReleaseBinding,
	ReleaseRequest,
	SinkClearance,
	SinkRegistry,
} from "./flow-types.js";
import { BOTTOM, type Label, atMost, join, label } from "./label.js";
import type { Redactor } from "./redaction-types.js";
import { globMayNameSecret, pathLabel, secretFileMatcher } from "./file-labels.js";
import { ReleaseLedger } from "./release-ledger.js";
import { secretValues } from "./secret-values.js";
import { ScopeLabeller } from "./shell-scope-label.js";
import { sourceSecretValues } from "./source-values.js";
import { toLabel } from "../evidence/store-rows.js";

export type FileLabelStore = Pick<Store, "putFileLabel" | "getFileLabel"> & Partial<Pick<Store, "listFileLabels">>;

export interface SessionFlowOptions {
	session: string;
	/** The workspace's real path: file labels are keyed by it. */
	workspace: string;
	registry: SinkRegistry;
	ceiling: TaskCeiling;
	redactor: Redactor;
	/** More secret-file globs from the host. */
	secretFiles?: readonly string[];
	fileLabels?: FileLabelStore;
	/** Event and audit record of one decision, wired by the runtime. */
	record(decision: FlowDecisionRecord): Promise<void>;
	/** Asks the host for one exact release (through human.ask); absent: nothing is ever released. */
	askRelease?: (request: ReleaseRequest, signal: AbortSignal) => Promise<boolean>;
	/** The context label a session starts with (a child starts from its parent's). */
	initialContext?: Label;
	redactModelContext?: "always" | "untrusted" | "never";
	now?: () => number;
	releaseTtlMs?: number;
}

export interface ModelContextFlow {
	readonly clearance: SinkClearance;
	/**
	 * A tool result entering the model context: redacted as the setting says, labelled with what
	 * detection finds in the text as sent, released or withheld when above the sink's clearance.
	 * A withheld result does not join the context.
	 */
	enter(args: { callId: string; content: string; label: Label; signal: AbortSignal }): Promise<{
		content: string;
		label: Label;
		withheld: boolean;
		record?: FlowDecisionRecord;
	}>;
	/**
	 * The llm.complete egress check: messages from `sentBefore` on are new to this sink; each must be
	 * cleared or carry a release approved in enter() for exactly that content (spent now).
	 */
	admitRequest(messages: readonly ContextMessage[], sentBefore: number): Promise<FlowDecisionRecord>;
	/**
	 * The same check given only the new messages, the first of them at index `firstIndex` of the
	 * context: a long session's caller need not build an entry for every message already sent.
	 */
	admitFresh(fresh: readonly ContextMessage[], firstIndex: number): Promise<FlowDecisionRecord>;
	/**
	 * The sink's own reply: sending exactly this text back to the same sink discloses nothing it did
	 * not produce, so admitRequest passes it whatever the context label it is stored under.
	 */
	noteReply(content: string): void;
}

/** One message of a model request, with its label; `host` for the host's own input (system prompt, user turn). */
export interface ContextMessage {
	content: string;
	label: Label;
	host?: boolean;
}

/** The context of a session no one has said anything about: the host's own words. */
export const INITIAL_CONTEXT: Label = label("internal", "trusted", { kind: "user", ref: "host" });

/** A release preview is bounded: the human judges the payload, not a transcript of it. */
export const PREVIEW_CHARS = 500;

/** What a withheld result's notice is labelled: Warden's own words, naming no data. */
const NOTICE_LABEL: Label = label("public", "trusted", { kind: "system", ref: "flow notice" });

export function sha256Hex(text: string): string {
	return sha256(text);
}

function preview(redacted: string): string {
	return redacted.length <= PREVIEW_CHARS ? redacted : `${redacted.slice(0, PREVIEW_CHARS)}… (${redacted.length} characters in all)`;
}

/** Trivial: nothing a reviewer needs to see, so it is returned but not recorded. */
function trivial(v: FlowVerdict): boolean {
	return v.decision === "allow" && v.clearance.trust === "trusted" && atMost(v.label.sensitivity, "internal");
}

function allowReason(v: FlowVerdict): string {
	return `${describeData(v.label)} is within what ${v.clearance.sink} clears ${describeClearance(v.clearance)}`;
}

export class SessionFlow {
	private context: Label;
	private readonly ledger: ReleaseLedger;
	private readonly isSecretFile: (rel: string) => boolean;
	/** Labels on content (by sha256) this session wrote or found secret: a copy under another name keeps them. */
	private readonly contentLabels = new Map<string, Label>();
	/** The same, by path, for files named before their content is known (a shell operand). */
	private readonly pathLabels = new Map<string, Label>();
	private readonly models = new Map<string, ModelContextFlow>();
	/** Source files already read for their values (`path@sha256`). */
	private readonly sourcesRead = new Set<string>();
	private readonly now: () => number;

	constructor(private readonly opts: SessionFlowOptions) {
		this.context = opts.initialContext ?? INITIAL_CONTEXT;
		this.now = opts.now ?? Date.now;
		this.ledger = new ReleaseLedger({ now: this.now, ...(opts.releaseTtlMs !== undefined ? { ttlMs: opts.releaseTtlMs } : {}) });
		this.isSecretFile = secretFileMatcher(opts.secretFiles ?? []);
	}

	get contextLabel(): Label {
		return this.context;
	}

	joinContext(l: Label): void {
		this.context = join(this.context, l);
	}

	forCall(callId: string, signal: AbortSignal): CallFlow {
		return new SessionCallFlow(this, callId, this.context, signal);
	}

	model(sink: string): ModelContextFlow {
		let flow = this.models.get(sink);
		if (flow === undefined) {
			flow = new SessionModelFlow(this, sink);
			this.models.set(sink, flow);
		}
		return flow;
	}

	// What follows is shared by the call and model views; not part of the session's public face.

	/** @internal */
	get options(): SessionFlowOptions {
		return this.opts;
	}

	/** @internal */
	get releases(): ReleaseLedger {
		return this.ledger;
	}

	/** @internal Secret when the redactor would change the text: a known value or a secret shape is in it. */
	detect(text: string, where: string): Label {
		return this.opts.redactor.redactText(text) !== text ? label("secret", "trusted", { kind: "detected", ref: where }) : BOTTOM;
	}

	/** @internal */
	binding(operation: FlowOperation, sink: string, payloadSha: string, l: Label, callId?: string): ReleaseBinding {
		return {
			session: this.opts.session,
			...(callId !== undefined ? { call_id: callId } : {}),
			operation,
			sink,
			payload_sha256: payloadSha,
			label: l,
			ceiling_hash: this.opts.ceiling.hash,
			registry_generation: this.opts.registry.generation,
		};
	}

	/** @internal */
	async fileLabel(rel: string, sha256: string): Promise<Label> {
		const parts = [pathLabel(rel, sha256, this.isSecretFile(rel))];
		const stored = await this.opts.fileLabels?.getFileLabel({ workspace: this.opts.workspace, path: rel, sha256 });
		if (stored !== undefined) parts.push(toLabel(stored));
		const known = this.contentLabels.get(sha256);
		if (known !== undefined) parts.push(known);
		const result = join(...parts);
		if (result.sensitivity === "secret") {
			this.rememberContent(sha256, result);
			this.rememberPath(rel, result);
		}
		return result;
	}

	/**
	 * @internal The label of a file named without its content: its name, and every label this session
	 * wrote or found on that path. Labels persisted by earlier sessions are keyed by content and
	 * cannot be found without it.
	 */
	pathLabel(path: string): Label {
		const secret = this.isSecretFile(path) || globMayNameSecret(path, this.isSecretFile);
		const parts = [label(secret ? "secret" : "internal", "trusted", { kind: "file", ref: path })];
		const known = this.pathLabels.get(path);
		if (known !== undefined) parts.push(known);
		return join(...parts);
	}

	/** @internal */
	async learnSources(l: Label): Promise<void> {
		const values = await sourceSecretValues({ workspace: this.opts.workspace, labelOf: (rel, sha256) => this.fileLabel(rel, sha256) }, l, this.sourcesRead);
		for (const value of values) this.opts.redactor.addSecret(value);
	}

	/** @internal A labeller of what a shell command may read, for one call. */
	scopeLabeller(): ScopeLabeller {
		const { fileLabels, workspace } = this.opts;
		return new ScopeLabeller({
			root: workspace,
			isSecretFile: this.isSecretFile,
			recorded: async () => (fileLabels?.listFileLabels ? (await fileLabels.listFileLabels(workspace)).map((row) => ({ ...row, label: toLabel(row.label) })) : []),
			sessionPaths: () => this.pathLabels,
		});
	}

	/** @internal */
	async labelWrite(rel: string, sha256: string, l: Label): Promise<void> {
		this.rememberContent(sha256, l);
		this.rememberPath(rel, l);
		// Internal and trusted is what any unlabelled file already is: nothing to persist.
		if (atMost(l.sensitivity, "internal") && l.integrity === "trusted") return;
		await this.opts.fileLabels?.putFileLabel({
			workspace: this.opts.workspace,
			path: rel,
			sha256,
			label: l,
			session: this.opts.session,
			created_at: new Date(this.now()).toISOString(),
		});
	}

	private rememberPath(rel: string, l: Label): void {
		const known = this.pathLabels.get(rel);
		this.pathLabels.set(rel, known === undefined ? l : join(known, l));
	}

	private rememberContent(sha256: string, l: Label): void {
		const known = this.contentLabels.get(sha256);
		this.contentLabels.set(sha256, known === undefined ? l : join(known, l));
	}
}

class SessionCallFlow implements CallFlow {
	private result: Label = BOTTOM;
	private readonly denied: Error[] = [];

	constructor(
		private readonly session: SessionFlow,
		readonly callId: string,
		readonly argumentsLabel: Label,
		private readonly signal: AbortSignal,
	) {}

	get resultLabel(): Label {
		return this.result;
	}

	get refusals(): readonly Error[] {
		return this.denied;
	}

	observe(l: Label, content?: string, values: readonly string[] = []): void {
		this.result = join(this.result, l);
		if (l.sensitivity !== "secret") return;
		const { redactor } = this.session.options;
		for (const value of values) redactor.addSecret(value);
		if (content === undefined) return;
		const file = l.sources.find((s) => s.kind === "file");
		for (const value of secretValues(file?.ref ?? "", content)) redactor.addSecret(value);
	}

	secretsIn(text: string): string[] {
		return this.session.options.redactor.knownIn(text);
	}

	learnSources(l: Label): Promise<void> {
		return this.session.learnSources(l);
	}

	fileLabel(rel: string, sha256: string): Promise<Label> {
		return this.session.fileLabel(rel, sha256);
	}

	pathLabel(path: string): Promise<Label> {
		return Promise.resolve(this.session.pathLabel(path));
	}

	labelWrite(rel: string, sha256: string, l: Label): Promise<void> {
		return this.session.labelWrite(rel, sha256, l);
	}

	scopeLabeller(): ScopeLabeller {
		return this.session.scopeLabeller();
	}

	async mayPersist(rel: string, sha256: string, content: string): Promise<boolean> {
		const l = join(await this.session.fileLabel(rel, sha256), this.session.detect(content, `content of ${rel}`));
		return l.sensitivity !== "secret";
	}

	async admitEgress(request: EgressRequest): Promise<FlowDecisionRecord[]> {
		const { operation, sinks, payload } = request;
		const opts = this.session.options;
		const payloadLabel = join(this.argumentsLabel, request.label ?? BOTTOM, this.session.detect(payload, `${operation} payload`));
		const digest = sha256Hex(payload);
		const verdicts = sinks.map((sink) => flowVerdict(opts.registry.resolve(sink), payloadLabel, opts.ceiling));
		const toRecord = (v: FlowVerdict, decision: FlowDecision, reason: string, releaseId?: string): FlowDecisionRecord => ({
			call_id: this.callId,
			operation,
			sink: v.clearance.sink,
			decision,
			label: v.label,
			clearance: v.clearance,
			payload_sha256: digest,
			reason,
			...(releaseId !== undefined ? { release_id: releaseId } : {}),
		});

		const denied = verdicts.filter((v) => v.decision === "deny");
		if (denied.length > 0) {
			for (const v of denied) await opts.record(toRecord(v, "deny", v.why));
			throw this.refuse(operation, denied[0]!.clearance.sink, payloadLabel, denied[0]!.why);
		}

		// Ask for every sink that needs a release before spending any: one refusal stops the whole operation.
		const approved = new Map<FlowVerdict, { asked: ReleaseRequest; why: string }>();
		for (const v of verdicts) {
			if (v.decision !== "release") continue;
			const binding = this.session.binding(operation, v.clearance.sink, digest, payloadLabel, this.callId);
			const asked = opts.askRelease === undefined ? undefined : this.session.releases.request(binding, { trust: v.clearance.trust, why: v.why, preview: preview(opts.redactor.redactText(payload)) });
			let yes = false;
			if (asked !== undefined && opts.askRelease !== undefined && !this.signal.aborted) {
				try {
					yes = await opts.askRelease(asked, this.signal);
				} catch (err) {
					await opts.record(toRecord(v, "deny", `${v.why}; the release request failed: ${(err as Error).message}`));
					throw err;
				}
			}
			if (!yes) {
				const why = `${v.why}; it needs an exact release and none was approved`;
				await opts.record(toRecord(v, "deny", why));
				throw this.refuse(operation, v.clearance.sink, payloadLabel, why);
			}
			approved.set(v, { asked: asked!, why: v.why });
		}

		const records: FlowDecisionRecord[] = [];
		for (const v of verdicts) {
			const release = approved.get(v);
			if (release === undefined) {
				const rec = toRecord(v, "allow", allowReason(v));
				if (!trivial(v)) await opts.record(rec);
				records.push(rec);
				continue;
			}
			const { asked } = release;
			this.session.releases.grant(asked);
			try {
				this.session.releases.consume(asked.id, this.session.binding(operation, v.clearance.sink, digest, payloadLabel, this.callId));
			} catch (err) {
				if (!(err instanceof ReleaseRefusedError)) throw err;
				await opts.record(toRecord(v, "deny", err.message));
				throw this.refuse(operation, v.clearance.sink, payloadLabel, err.message);
			}
			const rec = toRecord(v, "release", `released once by the host: ${release.why}`, asked.id);
			await opts.record(rec);
			records.push(rec);
		}
		return records;
	}

	private refuse(operation: string, sink: string, l: Label, why: string): FlowDeniedError {
		const err = new FlowDeniedError(operation, sink, l, why);
		this.denied.push(err);
		return err;
	}
}

class SessionModelFlow implements ModelContextFlow {
	readonly clearance: SinkClearance;
	/** Releases approved in enter(), by the digest of the content as sent: each is spent by one request. */
	private readonly released = new Map<string, ReleaseRequest[]>();
	/** Digests of text this sink produced itself. */
	private readonly replies = new Set<string>();

	constructor(
		private readonly session: SessionFlow,
		private readonly sink: string,
	) {
		this.clearance = session.options.registry.resolve(sink);
	}

	private redacts(): boolean {
		const setting = this.session.options.redactModelContext ?? "untrusted";
		return setting === "always" || (setting === "untrusted" && !atMost("secret", this.clearance.max));
	}

	async enter(args: { callId: string; content: string; label: Label; signal: AbortSignal }) {
		const opts = this.session.options;
		const sent = this.redacts() ? opts.redactor.redactText(args.content) : args.content;
		const l = join(args.label, this.session.detect(sent, `result of ${args.callId}`));
		const v = flowVerdict(this.clearance, l, opts.ceiling);
		if (v.decision === "allow") {
			this.session.joinContext(l);
			return { content: sent, label: l, withheld: false };
		}
		const digest = sha256Hex(sent);
		const record = (decision: FlowDecision, reason: string, releaseId?: string): FlowDecisionRecord => ({
			call_id: args.callId,
			operation: "llm.complete",
			sink: this.sink,
			decision,
			label: l,
			clearance: this.clearance,
			payload_sha256: digest,
			reason,
			...(releaseId !== undefined ? { release_id: releaseId } : {}),
		});
		if (v.decision === "release" && opts.askRelease !== undefined && !args.signal.aborted) {
			const binding = this.session.binding("llm.complete", this.sink, digest, l, args.callId);
			const asked = this.session.releases.request(binding, { trust: this.clearance.trust, why: v.why, preview: preview(opts.redactor.redactText(sent)) });
			if (await opts.askRelease(asked, args.signal)) {
				this.session.releases.grant(asked);
				const list = this.released.get(digest) ?? [];
				list.push(asked);
				this.released.set(digest, list);
				this.session.joinContext(l);
				const rec = record("release", `released once by the host for the next request to ${this.sink}: ${v.why}`, asked.id);
				await opts.record(rec);
				return { content: sent, label: l, withheld: false, record: rec };
			}
		}
		const why = v.decision === "release" ? `${v.why}; it needs an exact release and none was approved` : v.why;
		const rec = record("withheld", why);
		await opts.record(rec);
		const notice = `[warden] The result of call ${args.callId} was withheld from ${this.sink}: ${describeData(l)} may not be sent there (${why}). Do not try to obtain or send this data another way.`;
		return { content: notice, label: NOTICE_LABEL, withheld: true, record: rec };
	}

	noteReply(content: string): void {
		this.replies.add(sha256Hex(content));
	}

	admitRequest(messages: readonly ContextMessage[], sentBefore: number): Promise<FlowDecisionRecord> {
		return this.admitFresh(messages.slice(Math.max(0, sentBefore)), sentBefore);
	}

	async admitFresh(fresh: readonly ContextMessage[], sentBefore: number): Promise<FlowDecisionRecord> {
		const opts = this.session.options;
		const labels: Label[] = [];
		const releaseIds: string[] = [];
		for (const [i, m] of fresh.entries()) {
			// The host's own words are sent as the host wrote them: scanning them would second-guess the host.
			const l = m.host ? m.label : join(m.label, this.session.detect(m.content, `message ${sentBefore + i}`));
			labels.push(l);
			const v = flowVerdict(this.clearance, l, opts.ceiling);
			if (v.decision === "allow") continue;
			const digest = sha256Hex(m.content);
			if (this.replies.has(digest)) continue;
			const denyRecord = (reason: string): FlowDecisionRecord => ({
				operation: "llm.complete",
				sink: this.sink,
				decision: "deny",
				label: l,
				clearance: this.clearance,
				payload_sha256: digest,
				reason,
			});
			if (v.decision === "deny") {
				await opts.record(denyRecord(v.why));
				throw new FlowDeniedError("llm.complete", this.sink, l, v.why);
			}
			const spent = this.spend(digest);
			if (typeof spent === "string") {
				const why = `${v.why}; ${spent}`;
				await opts.record(denyRecord(why));
				throw new FlowDeniedError("llm.complete", this.sink, l, why);
			}
			releaseIds.push(spent.id);
			await opts.record({ ...denyRecord(`sent under the exact release ${spent.id}`), ...(spent.call_id !== undefined ? { call_id: spent.call_id } : {}), decision: "release", release_id: spent.id });
		}
		const all = join(BOTTOM, ...labels);
		return {
			operation: "llm.complete",
			sink: this.sink,
			decision: releaseIds.length > 0 ? "release" : "allow",
			label: all,
			clearance: this.clearance,
			payload_sha256: sha256Hex(canonicalJson(fresh.map((m) => m.content))),
			reason:
				releaseIds.length > 0
					? `${fresh.length} new message(s); ${releaseIds.length} sent under exact releases`
					: `${fresh.length} new message(s), ${describeData(all)}, within what ${this.sink} clears ${describeClearance(this.clearance)}`,
			...(releaseIds.length > 0 ? { release_id: releaseIds.join(",") } : {}),
		};
	}

	/** Spends the first usable release approved for exactly this content; a reason when there is none. */
	private spend(digest: string): ReleaseRequest | string {
		const list = this.released.get(digest) ?? [];
		let reason = "it needs an exact release and none was approved for this content";
		while (list.length > 0) {
			const asked = list.shift()!;
			try {
				return this.session.releases.consume(asked.id, {
					session: this.session.options.session,
					...(asked.call_id !== undefined ? { call_id: asked.call_id } : {}),
					operation: "llm.complete",
					sink: this.sink,
					payload_sha256: digest,
					ceiling_hash: this.session.options.ceiling.hash,
					registry_generation: this.session.options.registry.generation,
				});
			} catch (err) {
				if (!(err instanceof ReleaseRefusedError)) throw err;
				reason = err.message;
			}
		}
		return reason;
	}
}
