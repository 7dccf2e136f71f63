/**
 * `explain` of one model call: its `llm.complete` record and the context manifest it was sent
 * with (found by the digest the record carries, and checked against it). A turn's step is
 * `model_<turn>_<step>`, a compaction's summarising call `compaction_<k>`, or either by the seq of
 * its `llm.complete` or `context.manifest` record.
 */
import type { AuditRecord } from "../kernel/evidence/audit-types.js";
import type { Label } from "../kernel/flow/label.js";
import type { ContextManifest, SummarisedItem } from "./context/context-manifest.js";
import { ManifestReader } from "./context/context-manifest-delta.js";
import { ExplainError } from "./explain-types.js";

const MODEL_CALL_ID = /^model_(\d+)_(\d+)$/;
const COMPACTION_ID = /^compaction_(\d+)$/;
const AUDIT_SEQ = /^#?(\d+)$/;

/** The context a model call was sent, in short: what a tool call's explanation shows of its proposing call. */
export interface ContextLink {
	audit_seq: number;
	digest: string;
	digest_ok: boolean;
	tokens: number;
	window: number;
	totals: ContextManifest["totals"];
	/** The id `warden explain` takes for the whole manifest. */
	model_call: string;
}

export interface ModelCallExplanation {
	kind: "model_call";
	model_call: string;
	session: string;
	turn: number;
	purpose: ContextManifest["purpose"];
	/** The step for a turn's call; the compaction's number for a summarising call. */
	step: number;
	llm?: { audit_seq: number; spec?: string; outcome?: string; tool_calls?: number; usage?: unknown; flow?: unknown };
	manifest?: ContextManifest & { audit_seq: number; digest: string; digest_ok: boolean };
	/** What the summaries sent stand for, from their compactions' records: each stored message with its label, and the summary (chain) it reached the model through. */
	summarised: { ref: string; role?: string; label: Label; call_ids?: string[]; into: string; compaction_seq: number }[];
	complete: boolean;
	missing: string[];
}

function isManifestRecord(r: AuditRecord): boolean {
	return r.kind === "context.manifest";
}

/** The model call id of a manifest record: the turn and step it was made for, or the compaction it served. */
export function modelCallId(data: Record<string, unknown>): string {
	return data.purpose === "compaction" ? `compaction_${String(data.step)}` : `model_${String(data.turn)}_${String(data.step)}`;
}

/** The manifest record whose digest the llm.complete record names, with the digest checked against its content. */
export function manifestFor(audit: readonly AuditRecord[], llm: AuditRecord): (ContextManifest & { audit_seq: number; digest: string; digest_ok: boolean }) | undefined {
	const digest = llm.data.manifest_digest;
	if (typeof digest !== "string") return undefined;
	const record = audit.filter((r) => r.session === llm.session && isManifestRecord(r) && r.data.digest === digest && r.seq < llm.seq).at(-1);
	if (!record) return undefined;
	// A step's manifest may be recorded as what changed since the one before: the reader rebuilds it whole.
	const read = new ManifestReader(audit).read(record);
	if (!read) return undefined;
	const { digest: _, digest_ok, ...body } = read;
	return { ...body, audit_seq: record.seq, digest, digest_ok: digest_ok && read.digest === digest };
}

/** A manifest no llm.complete record names: shown whole, never as verified. */
function unlinkedManifest(audit: readonly AuditRecord[], record: AuditRecord): ContextManifest & { audit_seq: number; digest: string; digest_ok: boolean } {
	const read = new ManifestReader(audit).read(record);
	const { digest_ok: _, ...body } = read ?? { ...(record.data as unknown as ContextManifest), digest: String(record.data.digest), digest_ok: false };
	return { ...body, audit_seq: record.seq, digest: String(record.data.digest), digest_ok: false };
}

/** The short form of a call's context, for a tool call's explanation. */
export function contextLink(audit: readonly AuditRecord[], llm: AuditRecord): ContextLink | undefined {
	const m = manifestFor(audit, llm);
	if (!m) return undefined;
	return { audit_seq: m.audit_seq, digest: m.digest, digest_ok: m.digest_ok, tokens: m.tokens, window: m.window, totals: m.totals, model_call: modelCallId(m as unknown as Record<string, unknown>) };
}

/** Whether `id` names a model call rather than a tool call. */
export function isModelCallTarget(audit: readonly AuditRecord[], id: string): boolean {
	const wanted = id.trim();
	if (MODEL_CALL_ID.test(wanted) || COMPACTION_ID.test(wanted)) return true;
	const seq = AUDIT_SEQ.exec(wanted);
	if (!seq) return false;
	const record = audit.find((r) => r.seq === Number(seq[1]));
	return record !== undefined && (record.kind === "llm.complete" || record.kind === "context.manifest");
}

/** The turn's steps' llm.complete records, in order (a compaction's summarising calls are not steps). */
function stepRecords(audit: readonly AuditRecord[], session: string, turn: number): AuditRecord[] {
	return audit.filter((r) => r.session === session && r.turn === turn && r.kind === "llm.complete" && r.data.purpose !== "compaction").sort((a, b) => a.seq - b.seq);
}

export function explainModelCall(audit: readonly AuditRecord[], id: string, session?: string): ModelCallExplanation {
	const wanted = id.trim();
	let llm: AuditRecord | undefined;
	let manifestRecord: AuditRecord | undefined;
	const seq = AUDIT_SEQ.exec(wanted);
	if (seq) {
		const record = audit.find((r) => r.seq === Number(seq[1]));
		if (!record) throw new ExplainError(`no audit record #${seq[1]}`);
		if (record.kind === "llm.complete") llm = record;
		else if (isManifestRecord(record)) manifestRecord = record;
		else throw new ExplainError(`audit record #${record.seq} (${record.kind}) is not a model call's`);
	} else {
		const inSession = (r: AuditRecord) => session === undefined || r.session === session;
		const step = MODEL_CALL_ID.exec(wanted);
		const compaction = COMPACTION_ID.exec(wanted);
		if (!step && !compaction) throw new ExplainError(`"${id}" is not a model call id (model_<turn>_<step>, compaction_<k>)`);
		const candidates = audit.filter((r) => inSession(r) && isManifestRecord(r) && modelCallId(r.data) === wanted);
		const sessions = new Set(candidates.map((r) => r.session));
		if (step) {
			const [turn, n] = [Number(step[1]), Number(step[2])];
			for (const r of audit) if (inSession(r) && r.kind === "llm.complete" && r.turn === turn && r.data.purpose !== "compaction") sessions.add(r.session);
			if (sessions.size > 1) throw new ExplainError(`model call ${wanted} is in ${sessions.size} sessions; pass --session with one of: ${[...sessions].join(", ")}`);
			const only = [...sessions][0];
			if (only !== undefined) llm = stepRecords(audit, only, turn)[n - 1];
		} else {
			if (sessions.size > 1) throw new ExplainError(`model call ${wanted} is in ${sessions.size} sessions; pass --session with one of: ${[...sessions].join(", ")}`);
			llm = audit.filter((r) => inSession(r) && r.kind === "llm.complete" && r.data.purpose === "compaction" && r.data.compaction === Number(compaction![1])).at(-1);
		}
		manifestRecord = candidates.at(-1);
		if (!llm && !manifestRecord) throw new ExplainError(`no model call ${wanted} in the recorded evidence`);
	}
	const missing: string[] = [];
	const manifest = llm ? manifestFor(audit, llm) : undefined;
	const body = manifest ?? (manifestRecord ? unlinkedManifest(audit, manifestRecord) : undefined);
	const anchor = (llm ?? manifestRecord)!;
	// A manifest reached by its own seq: its call is the llm.complete that names its digest.
	if (!llm && manifestRecord) llm = audit.find((r) => r.session === manifestRecord!.session && r.kind === "llm.complete" && r.data.manifest_digest === manifestRecord!.data.digest && r.seq > manifestRecord!.seq);
	const data = (body ?? {}) as Partial<ContextManifest>;
	const explained: ModelCallExplanation = {
		kind: "model_call",
		model_call: body ? modelCallId(body as unknown as Record<string, unknown>) : llm?.data.purpose === "compaction" ? `compaction_${String(llm.data.compaction)}` : wanted,
		session: anchor.session,
		turn: data.turn ?? anchor.turn,
		purpose: data.purpose ?? (llm?.data.purpose === "compaction" ? "compaction" : "turn"),
		step: data.step ?? 0,
		summarised: [],
		complete: false,
		missing,
	};
	if (llm) {
		const link: NonNullable<ModelCallExplanation["llm"]> = { audit_seq: llm.seq };
		if (typeof llm.data.spec === "string") link.spec = llm.data.spec;
		if (typeof llm.data.outcome === "string") link.outcome = llm.data.outcome;
		if (typeof llm.data.tool_calls === "number") link.tool_calls = llm.data.tool_calls;
		if (llm.data.usage !== undefined) link.usage = llm.data.usage;
		if (llm.data.flow !== undefined) link.flow = llm.data.flow;
		explained.llm = link;
	} else missing.push(`no llm.complete audit record names manifest #${manifestRecord!.seq} (the request was refused before it was sent, or its record is lost)`);
	if (body) {
		explained.manifest = body;
		if (!manifest) missing.push(`manifest #${body.audit_seq} is not the one its llm.complete record names`);
		else if (!manifest.digest_ok) missing.push(`manifest #${manifest.audit_seq} does not match the digest ${manifest.digest.slice(0, 16)}… on llm.complete #${llm!.seq}`);
	} else missing.push(`no context manifest for llm.complete #${llm!.seq}${llm!.data.manifest_digest === undefined ? " (recorded without a manifest digest)" : ""}`);
	if (body) for (const item of body.items) if (item.disposition === "summary" && item.compaction !== undefined) expandSummary(audit, anchor.session, item.compaction, item.ref, anchor.seq, explained.summarised, missing);
	explained.complete = missing.length === 0;
	return explained;
}

/** The stored messages compaction `k` replaced, earlier summaries' expanded through their own records. */
function expandSummary(audit: readonly AuditRecord[], session: string, k: number, into: string, before: number, out: ModelCallExplanation["summarised"], missing: string[]): void {
	const record = audit.filter((r) => r.session === session && r.kind === "compaction.completed" && r.data.compaction === k && r.seq < before).at(-1);
	if (!record) {
		missing.push(`no compaction.completed record for compaction ${k} (${into} stands for its messages)`);
		return;
	}
	for (const item of (record.data.summarised_items ?? []) as SummarisedItem[]) {
		const nested = /^summary (\d+)$/.exec(item.ref);
		if (nested) expandSummary(audit, session, Number(nested[1]), `${item.ref} → ${into}`, record.seq, out, missing);
		else out.push({ ...item, into, compaction_seq: record.seq });
	}
}
