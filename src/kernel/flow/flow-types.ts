/**
 * The flow plane's contracts. Capabilities say who may touch a resource; flow says where data may
 * go afterwards. Every egress primitive checks the label of what it sends against the clearance of
 * each sink it sends to, independently of capability admission: neither plane can supply what the
 * other refuses.
 */
import type { Integrity, Label, Sensitivity } from "./label.js";
import type { ScopeLabeller } from "./shell-scope-label.js";

export type SinkTrust = "trusted" | "untrusted";

/**
 * A host-written sink rule. `sink` is a resource pattern (`net:https://api.example.com:443`,
 * `net:http://127.0.0.1:*`, `llm:openai/*`, `fs:public/**`, `human:host`). An untrusted sink can
 * never clear more than `internal`; `release` lets a human approve one payload at a time up to that
 * level (exact one-shot release); `min_integrity: trusted` refuses untrusted data outright (no
 * release can waive it).
 */
export interface SinkRuleSpec {
	sink: string;
	trust: SinkTrust;
	/** The most sensitive data this sink clears without a release. */
	max: Sensitivity;
	/** Above `max` and up to this, a human may release one exact payload. Absent: no release. */
	release?: Sensitivity;
	min_integrity?: Integrity;
}

/** A rule with where it came from, for explanations (`host`, `user config /x`, `default: local model`). */
export interface SinkRule extends SinkRuleSpec {
	source: string;
}

/** What the registry says about one concrete sink. */
export interface SinkClearance {
	/** The canonical sink (`net:http://127.0.0.1:4100`, `llm:scripted`, `fs:notes.md`). */
	sink: string;
	trust: SinkTrust;
	max: Sensitivity;
	release?: Sensitivity;
	min_integrity?: Integrity;
	/** The rule that matched (its pattern and source), or the default that applied. */
	rule: string;
}

/**
 * The host-owned sink registry: host rules in order (first match wins), then the runtime's
 * defaults. Unmatched sinks are untrusted with clearance `internal`. Its generation is a hash of
 * its rules: a release is bound to it, so changing the registry invalidates outstanding releases.
 */
export interface SinkRegistry {
	readonly rules: readonly SinkRule[];
	readonly generation: string;
	resolve(sink: string): SinkClearance;
}

/** The primitives that send data out, and the local write that is also a sink. */
export type FlowOperation = "net.fetch" | "shell.exec" | "llm.complete" | "fs.write" | "human.ask" | "agent.spawn" | "mcp.call" | "memory.write" | "memory.embed";

export type FlowDecision = "allow" | "deny" | "release" | "withheld";

/** The verdict of one admission for one sink, before any human is asked. */
export type FlowVerdict =
	| { decision: "allow"; clearance: SinkClearance; label: Label }
	/** Above clearance but within the rule's release level: allowed only with an exact release. */
	| { decision: "release"; clearance: SinkClearance; label: Label; why: string }
	| { decision: "deny"; clearance: SinkClearance; label: Label; why: string };

/** What an exact release is bound to; every field must match at use, and it is used once. */
export interface ReleaseBinding {
	session: string;
	call_id?: string;
	operation: FlowOperation;
	sink: string;
	/** sha256 hex of the canonical payload. */
	payload_sha256: string;
	/** The labels as they were when the human approved (the release does not change them). */
	label: Label;
	ceiling_hash: string;
	registry_generation: string;
}

/** What a human is shown when asked for an exact release. */
export interface ReleaseRequest extends ReleaseBinding {
	id: string;
	trust: SinkTrust;
	/** Why it needs a release: the label is above the sink's clearance. */
	why: string;
	/** A bounded, redacted preview of the payload. */
	preview: string;
	expires_at: string;
}

/** The host's answer to a release request: true approves this one payload to this one sink, once. */
export type ReleaseCallback = (request: ReleaseRequest, signal: AbortSignal) => boolean | Promise<boolean>;

/** One flow decision as evidence (event `flow.decided` and audit record `flow.decided`). */
export interface FlowDecisionRecord {
	call_id?: string;
	operation: FlowOperation;
	sink: string;
	decision: FlowDecision;
	label: Label;
	clearance: SinkClearance;
	payload_sha256: string;
	reason: string;
	release_id?: string;
}

/**
 * Flow as one tool call's primitives see it. The call's arguments came from the model, so they
 * carry the label of the model's context at the time; what the call reads joins its result label.
 */
export interface CallFlow {
	readonly callId: string;
	/** The label of the call's arguments: the model context it was proposed from. */
	readonly argumentsLabel: Label;
	/** The join of everything the call's primitives observed; the tool result carries it. */
	readonly resultLabel: Label;
	/**
	 * Joins what a primitive read into the result label; for secret data, its values are added to the
	 * redactor: `values` when the reader knows exactly which they are (a memory record's secret spans),
	 * and what the content's lines give.
	 */
	observe(label: Label, content?: string, values?: readonly string[]): void;
	/** The exact secret values the session's redactor knows that occur in `text` (never a shape it matches). */
	secretsIn(text: string): string[];
	/**
	 * For a secret label from the store (a recalled record's): the values of the workspace files it
	 * names as sources, where they are secret now, join the redactor (source-values.ts).
	 */
	learnSources(label: Label): Promise<void>;
	/** A workspace file's label: secret-file patterns, and labels recorded on its content hash. */
	fileLabel(rel: string, sha256: string): Promise<Label>;
	/**
	 * The label of a file named without its content being known (a shell command's operand or redirect):
	 * secret-file patterns, and any label recorded on that path, whatever its content hash.
	 */
	pathLabel(path: string): Promise<Label>;
	/**
	 * Egress admission for one operation to all of its sinks (an operation with several recipients
	 * names every one). The payload's label is argumentsLabel ⊔ `label` ⊔ what detection finds in
	 * the payload. Allowed → resolves with the decisions (recorded when not trivial); above
	 * clearance and releasable → asks the host for an exact release and consumes it; otherwise
	 * throws FlowDeniedError. Nothing is sent before this resolves.
	 */
	admitEgress(request: EgressRequest): Promise<FlowDecisionRecord[]>;
	/**
	 * Whether a file's content may be kept in the store as it is (a before-image for undo): not when
	 * it is labelled secret or holds something that looks like one — evidence never holds secrets.
	 */
	mayPersist(rel: string, sha256: string, content: string): Promise<boolean>;
	/** Records the label of content written to a workspace file, so a later read carries it. */
	labelWrite(rel: string, sha256: string, label: Label): Promise<void>;
	/** Labels what a shell command may read (directories walked, globs, git sends), for this call. */
	scopeLabeller(): ScopeLabeller;
	/** Flow refusals so far, in order, for the call's evidence. */
	readonly refusals: readonly Error[];
}

export interface EgressRequest {
	operation: FlowOperation;
	/** Canonical sinks: `net:<origin>`, `llm:<profile>`, `fs:<rel>`, `human:<channel>`. */
	sinks: readonly string[];
	/** The exact bytes that leave (canonical form); hashed for the release binding and scanned for secrets. */
	payload: string;
	/** What the payload carries besides the call's arguments (e.g. a file the command names). */
	label?: Label;
}

/** Host settings of the flow plane (config `flow:` and SessionOptions.flow). */
export interface FlowSettings {
	/** Host sink rules, first match wins, before the defaults. */
	sinks?: readonly (SinkRuleSpec & { source?: string })[];
	/** More globs (workspace-relative, picomatch, dot files matched) whose files are secret. */
	secret_files?: readonly string[];
	/** Mask secrets in what is sent to the model: `untrusted` (default: when the model's sink does not clear secret), `always` or `never`. */
	redact_model_context?: "always" | "untrusted" | "never";
}
