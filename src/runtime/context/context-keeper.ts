/**
 * One session's context: what each message of the working history stands for in the stored record,
 * when the next request needs compaction, the compaction itself (a governed model call), and the
 * manifest of every model call. The stored record is never rewritten: compaction changes only
 * what the model is sent.
 */
import type { SessionHooks } from "../hooks/session-hooks.js";
import type { Authority } from "../../kernel/authority/authority.js";
import { llmResource } from "../../kernel/authority/resource.js";
import type { Budget } from "../../kernel/budget/budget.js";
import { BudgetExhaustedError } from "../../kernel/budget/budget-errors.js";
import { CapabilityDeniedError } from "../../kernel/authority/authority-errors.js";
import type { EvidenceRecorder } from "../../kernel/evidence/evidence-recorder.js";
import { join, type Label, label } from "../../kernel/flow/label.js";
import type { SessionFlow } from "../../kernel/flow/session-flow.js";
import { createLlmPrimitives, modelProfile } from "../../kernel/kernel-llm.js";
import type { Message, ModelProvider, ModelRequest, ToolSchema } from "../../models/provider.js";
import { ABORTED, untilAborted } from "../abort-race.js";
import { COMPACTION_INSTRUCTION, summaryMessage } from "./compaction-prompt.js";
import { type ContextManifest, LabelTable, type ManifestItem, manifestDigest, manifestTotals, refRanges, type SummarisedItem } from "./context-manifest.js";
import { ManifestChain, type StepItem } from "./context-manifest-delta.js";
import type { ContextSettings } from "./context-settings.js";
import type { InstructionPart } from "./project-instructions.js";
import { renderTodo, type TodoState } from "./todo-state.js";
import { TokenCounter } from "./token-count.js";
import { stepDeadline } from "../step-deadline.js";

/** A compaction that found nothing to summarise: trying again in the same step would plan the same. */
export const NOTHING_TO_SUMMARISE = "nothing older than the last step and the current task is left to summarise";

/** After this many compactions fail in a row the turn ends `context_full`: never a loop. */
export const MAX_COMPACTION_FAILURES = 3;

/** What a message of the working history stands for. */
type Entry =
	| { kind: "recorded"; ref: string; role: Message["role"]; label: Label; callIds: string[]; pinned?: string }
	/** `covers`: the stored messages (their numbers) it stands for, earlier summaries' included. */
	| { kind: "summary"; ref: string; compaction: number; label: Label; covers: number[]; callIds: string[]; coversText: string };

/** A recorded message's manifest items, made once: as the current task, and as any other kept message. */
interface CachedItems {
	entry: Entry;
	task?: StepItem;
	kept?: StepItem;
}

/** Everything one request (a turn's step, or a compaction) needs from the session and the turn. */
export interface ContextCall {
	history: Message[];
	context: { labels: Label[]; sent: number };
	tools: ToolSchema[];
	model: ModelProvider;
	authority: Authority;
	budget: Budget;
	flow: SessionFlow;
	recorder: EvidenceRecorder;
	signal: AbortSignal;
	modelTimeoutMs: number;
	/** PreCompact hooks run before a compaction starts. */
	hooks?: SessionHooks;
}

export interface PreparedRequest {
	/** Corrected tokens of the request, as counted before it was sent. */
	tokens: number;
	raw: number;
	window: number;
	digest: string;
	totals: ContextManifest["totals"];
}

export type Preparation =
	| ({ ok: true } & PreparedRequest)
	/** The turn ends before the request: compaction gave up, or the turn was cancelled during one. */
	| { ok: false; status: "context_full" | "cancelled"; error: string };

export type CompactionOutcome = { ok: true; compaction: number; summarised: number; tokensBefore: number; tokensAfter: number } | { ok: false; error: string; failures: number };

export interface KeeperOptions {
	settings: ContextSettings;
	model: Pick<ModelProvider, "countTokens">;
	/** The session's todo list as its events left it. */
	todo: () => Promise<TodoState | undefined>;
	/** Project instruction files: their cut parts are listed as omitted in every manifest. */
	instructions?: readonly InstructionPart[];
	/** The label of the project instructions, when there are any. */
	instructionsLabel?: Label;
	/** Compactions the session's earlier runs started: a resumed session numbers its own after them. */
	compactionsBefore?: number;
	/** The active skills whose activation calls a summary covers: carried into it verbatim (src/runtime/skills). */
	carrySkills?: (callIds: readonly string[]) => { text: string; label: Label } | undefined;
}

/** The runtime's own words in a request (the compaction instruction): trusted, naming no data. */
const RUNTIME_WORDS: Label = label("internal", "trusted", { kind: "system", ref: "runtime" });

function callIdsOf(message: Message): string[] {
	if (message.role === "assistant") return (message.tool_calls ?? []).map((c) => c.id);
	if (message.role === "tool") return [message.tool_call_id];
	return [];
}

export class ContextKeeper {
	readonly counter: TokenCounter;
	private readonly entries = new WeakMap<Message, Entry>();
	/** Each message's manifest item, built once: a step's manifest reuses what the step before listed. */
	private readonly items = new WeakMap<Message, CachedItems>();
	private readonly chain = new ManifestChain();
	private omittedItems: StepItem[] | undefined;
	private recorded = 0;
	private compactions = 0;
	private failures = 0;
	private turn = -1;

	constructor(private readonly opts: KeeperOptions) {
		this.counter = new TokenCounter(opts.model);
		this.compactions = opts.compactionsBefore ?? 0;
	}

	get settings(): ContextSettings {
		return this.opts.settings;
	}

	/** Messages of the stored record so far: the manifest's refs run m1 to m<recorded>. */
	get recordedMessages(): number {
		return this.recorded;
	}

	get failedInARow(): number {
		return this.failures;
	}

	/** A message just stored (in the order the store keeps them); `pinned` says why it is never summarised. */
	note(message: Message, carries: Label, pinned?: string): void {
		this.recorded++;
		const entry: Entry = { kind: "recorded", ref: `m${this.recorded}`, role: message.role, label: carries, callIds: callIdsOf(message) };
		if (pinned) entry.pinned = pinned;
		this.entries.set(message, entry);
	}

	private entry(message: Message, index: number, labels: readonly Label[]): Entry {
		return this.entries.get(message) ?? { kind: "recorded", ref: `unrecorded ${index}`, role: message.role, label: labels[index] ?? RUNTIME_WORDS, callIds: callIdsOf(message) };
	}

	private rawRequest(messages: readonly Message[], tools: readonly ToolSchema[]): number {
		return messages.reduce((n, m) => n + this.counter.rawMessage(m), this.counter.rawTools(tools));
	}

	/**
	 * Before a turn's request: compacts while the request passes the limit (at most three tries,
	 * each a governed model call), then records the manifest of what will be sent.
	 */
	async prepare(call: ContextCall, step: number): Promise<Preparation> {
		// Failures count within a turn: a new turn (the user said more) may try again.
		if (call.recorder.currentTurn !== this.turn) {
			this.turn = call.recorder.currentTurn;
			this.failures = 0;
		}
		let stuck = false;
		for (let attempt = 0; attempt < MAX_COMPACTION_FAILURES; attempt++) {
			const tokens = this.counter.corrected(this.rawRequest(call.history, call.tools));
			if (tokens <= this.settings.limit || this.failures >= MAX_COMPACTION_FAILURES) break;
			const outcome = await this.compact(call, "threshold");
			if (call.signal.aborted) return { ok: false, status: "cancelled", error: "turn cancelled by the host" };
			if (outcome.ok) continue;
			// Trying again would plan the same; a refusal is the turn's own request's to record.
			stuck = outcome.error === NOTHING_TO_SUMMARISE;
			if (stuck || outcome.error.startsWith("refused:")) break;
			// A request that still fits the window goes ahead; the next step tries to compact again.
			if (tokens + this.settings.reserve <= this.settings.window) break;
		}
		const needed = this.counter.corrected(this.rawRequest(call.history, call.tools));
		// Only a window someone stated ends the turn: the default is a guess, and past it the provider answers for itself.
		if (needed > this.settings.limit && this.settings.windowSource !== "default") {
			if (this.failures >= MAX_COMPACTION_FAILURES) {
				return { ok: false, status: "context_full", error: `the context is full: ${MAX_COMPACTION_FAILURES} compactions in a row failed (see the compaction.failed events); start a new session or raise the context window` };
			}
			if (stuck && needed + this.settings.reserve > this.settings.window) {
				return { ok: false, status: "context_full", error: `the context is full: the pinned messages and the last step alone need ${needed} tokens of a ${this.settings.window}-token window, and nothing older is left to summarise` };
			}
		}
		const raw = this.rawRequest(call.history, call.tools);
		const tokens = this.counter.corrected(raw);
		// Recorded as what changed since the step before (context-manifest-delta.ts): a long session's step records its own step, not its history again.
		const { data, digest } = this.chain.record(this.stepItems(call.history, call.context.labels), {
			turn: call.recorder.currentTurn,
			step,
			window: this.settings.window,
			limit: this.settings.limit,
			tokens,
			count_method: this.counter.source.method,
			factor: this.counter.source.factor,
		});
		await call.recorder.audit("context.manifest", { digest, ...data });
		return { ok: true, tokens, raw, window: this.settings.window, digest, totals: data.totals };
	}

	/** The items of a turn's manifest, as `manifest` lists them, each the same object as long as it is unchanged. */
	private stepItems(messages: readonly Message[], labels: readonly Label[]): StepItem[] {
		const task = this.taskIndex(messages, labels);
		const items: StepItem[] = [];
		for (const [i, m] of messages.entries()) {
			const raw = this.counter.rawMessage(m);
			const known = this.entries.get(m);
			let cached = known ? this.items.get(m) : undefined;
			if (known && cached?.entry !== known) {
				cached = { entry: known };
				this.items.set(m, cached);
			}
			const slot = i === task ? "task" : "kept";
			let item = cached?.[slot];
			if (!item || item.raw !== raw) {
				item = this.stepItem(m, i, labels, i === task, raw);
				if (cached) cached[slot] = item;
			}
			items.push(item);
		}
		this.omittedItems ??= this.omitted().map((x) => ({ ...x, label: x.label }));
		items.push(...this.omittedItems);
		return items;
	}

	private stepItem(m: Message, i: number, labels: readonly Label[], isTask: boolean, raw: number): StepItem {
		const e = this.entry(m, i, labels);
		const base = { ref: e.ref, role: m.role, label: e.label, raw, ...(e.kind === "recorded" && e.callIds.length ? { call_ids: e.callIds } : {}) };
		if (e.kind === "summary") return { ...base, disposition: "summary", why: `compaction ${e.compaction}'s summary, sent in place of ${e.covers.length} stored message(s)`, covers: e.coversText, covered: e.covers.length, compaction: e.compaction };
		return { ...base, disposition: "verbatim", why: e.pinned ?? (isTask ? "the current task: never summarised" : "kept verbatim: within the context limit") };
	}

	/** The project instruction files' parts the cap or a read error left out: listed in every manifest. */
	private omitted(): { ref: string; disposition: "omitted"; why: string; label: Label }[] {
		const out: { ref: string; disposition: "omitted"; why: string; label: Label }[] = [];
		for (const part of this.opts.instructions ?? []) {
			if (part.unreadable !== undefined) out.push({ ref: `file ${part.path}`, disposition: "omitted", why: `could not be read (${part.unreadable})`, label: this.opts.instructionsLabel ?? RUNTIME_WORDS });
			if (part.cut > 0) out.push({ ref: `file ${part.path}`, disposition: "omitted", why: `${part.cut} byte(s) past the 32 KiB cap on project instructions`, label: this.opts.instructionsLabel ?? RUNTIME_WORDS });
			if (part.secret) out.push({ ref: `file ${part.path}`, disposition: "omitted", why: "its content is labelled secret", label: this.opts.instructionsLabel ?? RUNTIME_WORDS });
		}
		return out;
	}

	/** A provider reported the prompt's tokens: later counts are corrected by it. */
	observe(prepared: PreparedRequest, usage: { prompt_tokens: number } | undefined): void {
		if (usage && !this.opts.model.countTokens) this.counter.observe(prepared.raw, usage.prompt_tokens);
	}

	/**
	 * The manifest of `messages` about to be sent: each as its entry says (a summary naming the
	 * stored messages it stands for), then `extra`, then what the cap left out.
	 */
	manifest(messages: readonly Message[], labels: readonly Label[], purpose: ContextManifest["purpose"], turn: number, step: number, tokens: number, extra: readonly (Omit<ManifestItem, "label"> & { label: Label })[] = []): ContextManifest {
		const task = this.taskIndex(messages, labels);
		const table = new LabelTable();
		const items: ManifestItem[] = messages.map((m, i) => {
			const e = this.entry(m, i, labels);
			const base = { ref: e.ref, role: m.role, label: table.of(e.label), tokens: this.counter.message(m), ...(e.kind === "recorded" && e.callIds.length ? { call_ids: e.callIds } : {}) };
			if (e.kind === "summary") return { ...base, disposition: "summary", why: `compaction ${e.compaction}'s summary, sent in place of ${e.covers.length} stored message(s)`, covers: e.coversText, covered: e.covers.length, compaction: e.compaction };
			const why = e.pinned ?? (i === task ? "the current task: never summarised" : "kept verbatim: within the context limit");
			return { ...base, disposition: "verbatim", why };
		});
		for (const x of extra) items.push({ ...x, label: table.of(x.label) });
		for (const x of this.omitted()) items.push({ ...x, label: table.of(x.label) });
		return { purpose, turn, step, window: this.settings.window, limit: this.settings.limit, tokens, count_method: this.counter.source.method, labels: table.labels, items, totals: manifestTotals(items) };
	}

	/** What no compaction can shrink: the tools' schemas, the pinned head and the current task. */
	private fixedTokens(messages: readonly Message[], labels: readonly Label[], tools: readonly ToolSchema[]): number {
		const task = this.taskIndex(messages, labels);
		let n = this.counter.corrected(this.counter.rawTools(tools));
		for (const [i, m] of messages.entries()) if (this.isPinned(m) || i === task) n += this.counter.message(m);
		return n;
	}

	private isPinned(message: Message): boolean {
		const e = this.entries.get(message);
		return e?.kind === "recorded" && e.pinned !== undefined;
	}

	/** The current task: the latest user message of the record (a summary is not one). */
	private taskIndex(messages: readonly Message[], labels: readonly Label[]): number {
		for (let i = messages.length - 1; i >= 0; i--) {
			const e = this.entry(messages[i]!, i, labels);
			if (messages[i]!.role === "user" && e.kind === "recorded" && !e.pinned) return i;
		}
		return -1;
	}

	/**
	 * What to summarise: after the pinned head (system prompt, project instructions), up to a
	 * boundary that splits no tool call from its result, keeping the last step and the steps before
	 * it that fit in `keep` tokens verbatim, and never the current task.
	 */
	private plan(messages: readonly Message[], labels: readonly Label[], keep: number): { start: number; cut: number; task: number } | undefined {
		let start = 0;
		while (start < messages.length && this.isPinned(messages[start]!)) start++;
		const boundaries: number[] = [];
		for (let i = start + 1; i < messages.length; i++) if (messages[i]!.role !== "tool") boundaries.push(i);
		if (boundaries.length === 0) return undefined;
		let cut = boundaries[boundaries.length - 1]!;
		let suffix = 0;
		for (let i = messages.length - 1; i >= start + 1; i--) {
			suffix += this.counter.message(messages[i]!);
			if (suffix > keep) break;
			if (messages[i]!.role !== "tool") cut = Math.min(cut, i);
		}
		const task = this.taskIndex(messages, labels);
		// Only recorded messages make a summary worth its call: re-summarising a lone summary frees nothing.
		let covered = 0;
		for (let i = start; i < cut; i++) if (i !== task && this.entry(messages[i]!, i, labels).kind === "recorded") covered++;
		if (covered === 0) return undefined;
		return { start, cut, task };
	}

	/**
	 * Summarises the oldest turns through the kernel's llm primitive (admitted, flow-checked,
	 * budgeted, recorded like any model call) and puts the summary in their place.
	 * `requested`: the host asked (the terminal's /compact), whatever the threshold says.
	 */
	async compact(call: ContextCall, reason: "threshold" | "requested"): Promise<CompactionOutcome> {
		const { history, context, recorder } = call;
		const tokensBefore = this.counter.corrected(this.rawRequest(history, call.tools));
		const k = ++this.compactions;
		// On request, everything but the last step is summarised; at the threshold, the recent steps
		// that fit in half of what the limit leaves beside the tools and the pins stay verbatim.
		const plan = this.plan(history, context.labels, reason === "requested" ? 0 : Math.floor(Math.max(0, this.settings.limit - this.fixedTokens(history, context.labels, call.tools)) / 2));
		const started = Date.now();
		const fail = async (error: string): Promise<CompactionOutcome> => {
			this.failures++;
			const gaveUp = this.failures >= MAX_COMPACTION_FAILURES;
			const data = { compaction: k, reason, error, failures: this.failures, gave_up: gaveUp };
			await recorder.emit("compaction.failed", data);
			await recorder.audit("compaction.failed", data);
			return { ok: false, error, failures: this.failures };
		};
		const trigger = reason === "requested" ? "manual" : "auto";
		await call.hooks?.fire("PreCompact", { trigger, custom_instructions: "" }, { match: trigger });
		const startedData = { compaction: k, reason, tokens: tokensBefore, limit: this.settings.limit, window: this.settings.window, summarising: plan ? plan.cut - plan.start : 0 };
		await recorder.emit("compaction.started", startedData);
		await recorder.audit("compaction.started", startedData);
		if (!plan) return fail(NOTHING_TO_SUMMARISE);

		const covered: { message: Message; index: number; entry: Entry }[] = [];
		for (let i = plan.start; i < plan.cut; i++) if (i !== plan.task) covered.push({ message: history[i]!, index: i, entry: this.entry(history[i]!, i, context.labels) });
		const modelFlow = call.flow.model(llmResource(modelProfile(call.model.spec)));
		const requestMessages: Message[] = [...history.slice(0, plan.cut), { role: "user", content: COMPACTION_INSTRUCTION }];
		const requestLabels = [...context.labels.slice(0, plan.cut), RUNTIME_WORDS];
		const requestTokens = this.counter.corrected(this.rawRequest(requestMessages, call.tools));
		const instructionItem = { ref: "instruction", role: "user" as const, disposition: "verbatim" as const, why: "the runtime's request for a summary", label: RUNTIME_WORDS, tokens: this.counter.message(requestMessages[requestMessages.length - 1]!) };
		// The summarising call's manifest: what it was sent of the working history, and the instruction.
		const manifest = this.manifest(requestMessages.slice(0, -1), requestLabels, "compaction", recorder.currentTurn, k, requestTokens, [instructionItem]);
		const digest = manifestDigest(manifest);
		await recorder.audit("context.manifest", { digest, ...manifest });
		// What the summariser is sent is on record before it leaves (the turn's writes are deferred).
		await recorder.durable();
		const llm = createLlmPrimitives({
			model: call.model,
			authority: call.authority.forCall({ approved: false }),
			budget: call.budget,
			record: async (data) => {
				await recorder.audit("llm.complete", { ...data, purpose: "compaction", compaction: k, manifest_digest: digest, context_tokens: requestTokens, context_window: this.settings.window });
			},
			// The same messages the provider already holds, then the instruction: only what it was not sent is new to it.
			admitFlow: (request: ModelRequest) =>
				modelFlow.admitRequest(
					request.messages.map((m, i) => ({ content: m.content, label: requestLabels[i] ?? call.flow.contextLabel, host: m.role === "system" || m.role === "user" })),
					Math.min(plan.cut, context.sent),
				),
		});
		const deadline = stepDeadline(call.signal, call.modelTimeoutMs);
		let summary: string;
		try {
			const response = await llm.complete(
				{ messages: requestMessages, tools: call.tools, purpose: "compaction" },
				{
					signal: deadline.signal,
					wait: async (answer, waitSignal) => {
						const settled = await untilAborted(answer, waitSignal);
						if (settled === ABORTED) throw waitSignal.reason;
						return settled;
					},
				},
			);
			if (response.usage && !this.opts.model.countTokens) this.counter.observe(this.rawRequest(requestMessages, call.tools), response.usage.prompt_tokens);
			summary = response.text.trim();
		} catch (err) {
			if (call.signal.aborted) return fail("cancelled with the turn");
			if (deadline.expired) return fail(`the summarising call did not answer within ${call.modelTimeoutMs} ms`);
			// Refused before anything was sent: the turn's own request meets the same refusal and records it.
			if (err instanceof BudgetExhaustedError || err instanceof CapabilityDeniedError) return fail(`refused: ${firstLine(err)}`);
			return fail(`the summarising call failed: ${firstLine(err)}`);
		} finally {
			deadline.dispose();
		}
		if (summary === "") return fail("the summarising call answered with no text");

		const callIds = [...new Set(covered.flatMap((c) => c.entry.callIds))];
		const todo = await this.opts.todo();
		const refs = covered.map((c) => c.entry.ref);
		const numbers = covered.flatMap((c) => (c.entry.kind === "summary" ? c.entry.covers : [Number(c.entry.ref.slice(1))]));
		const skills = this.opts.carrySkills?.(callIds);
		const framed = summaryMessage(summary, { compaction: k, first: refs[0]!, last: refs[refs.length - 1]!, count: refs.length, callIds, ...(todo ? { todo: renderTodo(todo) } : {}) });
		const content = skills ? `${framed}\n\n${skills.text}` : framed;
		const summaryMsg: Message = { role: "user", content };
		const summaryLabel = join(...covered.map((c) => c.entry.label), ...(skills ? [skills.label] : []));
		const taskKept = plan.task >= plan.start && plan.task < plan.cut ? [plan.task] : [];
		const next = [...history.slice(0, plan.start), summaryMsg, ...taskKept.map((i) => history[i]!), ...history.slice(plan.cut)];
		const tokensAfter = this.counter.corrected(this.rawRequest(next, call.tools));
		if (tokensAfter >= tokensBefore) return fail(`the summary (${this.counter.message(summaryMsg)} tokens) did not make the context smaller`);

		const summaryRef = `summary ${k}`;
		// Listed once, here, with their labels: every later manifest names them by range.
		const summarised: SummarisedItem[] = covered.map((c) =>
			c.entry.kind === "summary"
				? { ref: c.entry.ref, role: "user", label: c.entry.label }
				: { ref: c.entry.ref, role: c.entry.role, label: c.entry.label, ...(c.entry.callIds.length ? { call_ids: c.entry.callIds } : {}) },
		);
		const coverNumbers = [...new Set(numbers)].sort((a, b) => a - b);
		this.entries.set(summaryMsg, { kind: "summary", ref: summaryRef, compaction: k, label: summaryLabel, covers: coverNumbers, callIds, coversText: refRanges(coverNumbers) });
		// The provider already holds every kept message as sent, and the summary is its own words in Warden's frame.
		for (let i = 0; i < context.sent && i < history.length; i++) if (i >= plan.start) modelFlow.noteReply(history[i]!.content);
		modelFlow.noteReply(content);
		const nextLabels = [...context.labels.slice(0, plan.start), summaryLabel, ...taskKept.map((i) => context.labels[i]!), ...context.labels.slice(plan.cut)];
		history.splice(0, history.length, ...next);
		context.labels.splice(0, context.labels.length, ...nextLabels);
		context.sent = Math.min(context.sent, plan.start);
		this.failures = 0;
		const done = { compaction: k, reason, summary_ref: summaryRef, summarised: refs.length, first: refs[0]!, last: refs[refs.length - 1]!, call_ids: callIds.length, tokens_before: tokensBefore, tokens_after: tokensAfter, duration_ms: Date.now() - started };
		await recorder.emit("compaction.completed", done);
		await recorder.audit("compaction.completed", { ...done, covers: refRanges(numbers), summarised_items: summarised, summary: content, label: summaryLabel, ...(todo ? { todo_event: todo.event } : {}) });
		return { ok: true, compaction: k, summarised: refs.length, tokensBefore, tokensAfter };
	}
}

function firstLine(err: unknown): string {
	const text = err instanceof Error ? err.message : String(err);
	const line = text.split("\n").find((l) => l.trim() !== "") ?? "";
	return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
