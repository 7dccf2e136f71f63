/**
 * Where a session puts each ask (an approval, a release, an elicitation): a durable row first, then a race between the surface of this
 * process (its confirm or release callback, when it has one) and every other surface answering
 * through the store. The first answer to land on the row wins, exactly once; the losers are told
 * by an aborted signal (the local prompt) or a refused claim (another process). A timeout, a
 * cancelled turn or a failed confirmation expires the row instead, and the call is refused.
 */
import { randomUUID } from "node:crypto";
import type { EvidenceRecorder } from "../../kernel/evidence/evidence-recorder.js";
import type { AskRow, AskStore } from "../../store/ask-rows.js";
import { type AskContent, askBody, isAskAnswer } from "./ask-content.js";
import type { AskAnswer, ElicitAction } from "./ask-types.js";
import { type StoreWake, stateDirWake } from "../../store/store-wake.js";

/** What this process's own surface answered, and who it says it is. */
export interface LocalAnswer<A extends AskAnswer | ElicitAction = AskAnswer> {
	answer: A;
	by: string;
	/** What the answer carries beyond its word (an elicitation's fields); kept in this process, never written to the row. */
	content?: Record<string, unknown>;
}

export type LocalSurface<A extends AskAnswer | ElicitAction = AskAnswer> = (signal: AbortSignal) => Promise<LocalAnswer<A>>;

export type AskSettlement<A extends AskAnswer | ElicitAction = AskAnswer> =
	| { settled: "answered"; ask: string; answer: A; by: string; content?: Record<string, unknown> }
	| { settled: "refused"; ask: string; why: string };

/** An ask that settled without an answer: its one line says why (a timeout, a cancelled turn, a failed confirmation). */
export class AskRefused extends Error {
	override name = "AskRefused";
}

export interface AskBoardOptions {
	rows: AskStore;
	/** Wakes the waiter when another process may have answered; default: a slow poll only. */
	wake?: StoreWake;
	/** How long an ask waits for any answer; absent, until one comes or the turn is cancelled. */
	timeoutMs?: number;
	now?: () => Date;
}

export class AskBoard {
	private readonly rows: AskStore;
	private readonly wake: StoreWake;
	private readonly timeoutMs: number | undefined;
	private readonly now: () => Date;

	constructor(options: AskBoardOptions) {
		this.rows = options.rows;
		this.wake = options.wake ?? stateDirWake(undefined);
		this.timeoutMs = options.timeoutMs;
		this.now = options.now ?? (() => new Date());
	}

	/**
	 * Opens the row, waits for the first answer from any surface, and records how it settled.
	 * `known`: the answers this kind of ask takes (default: the approval answers); a row answered
	 * with anything else settles as refused.
	 */
	async ask<A extends AskAnswer | ElicitAction = AskAnswer>(
		recorder: EvidenceRecorder,
		content: AskContent,
		local: LocalSurface<A> | undefined,
		signal: AbortSignal,
		known: (value: unknown) => value is A = isAskAnswer as (value: unknown) => value is A,
	): Promise<AskSettlement<A>> {
		const created = this.now();
		const expiresAt = earliest(content.expires_at, this.timeoutMs === undefined ? undefined : new Date(created.getTime() + this.timeoutMs).toISOString());
		const row = this.rows.open({
			id: `ask_${randomUUID()}`,
			session: recorder.session,
			call_id: content.call_id,
			kind: content.kind,
			body: recorder.redacted(askBody(content)),
			created_at: created.toISOString(),
			...(expiresAt !== undefined ? { expires_at: expiresAt } : {}),
		});
		const opened = { ask: row.id, call_id: row.call_id, kind: content.kind, tool: content.tool, resource: content.resource };
		await recorder.emit("ask.opened", expiresAt !== undefined ? { ...opened, expires_at: expiresAt } : opened);
		const settlement = await this.settle(row, expiresAt, local, signal, known);
		const base = { ask: row.id, call_id: row.call_id, kind: content.kind };
		if (settlement.settled === "answered") {
			const answered = { ...base, answer: settlement.answer, answered_by: settlement.by };
			await recorder.emit("ask.answered", answered);
			await recorder.audit("ask.answered", { ask: row.id, kind: content.kind, tool: content.tool, resource: content.resource, answer: settlement.answer, answered_by: settlement.by }, row.call_id);
		} else {
			await recorder.emit("ask.expired", { ...base, why: settlement.why });
			await recorder.audit("ask.expired", { ask: row.id, kind: content.kind, tool: content.tool, resource: content.resource, why: settlement.why }, row.call_id);
		}
		return settlement;
	}

	private settle<A extends AskAnswer | ElicitAction>(row: AskRow, expiresAt: string | undefined, local: LocalSurface<A> | undefined, signal: AbortSignal, known: (value: unknown) => value is A): Promise<AskSettlement<A>> {
		const id = row.id;
		const inner = new AbortController();
		const onAbort = () => inner.abort();
		signal.addEventListener("abort", onAbort, { once: true });
		return new Promise<AskSettlement<A>>((resolve) => {
			let done = false;
			const finish = (settlement: AskSettlement<A>) => {
				if (done) return;
				done = true;
				signal.removeEventListener("abort", onAbort);
				// The losing surface stops asking: the terminal's prompt is taken down.
				inner.abort();
				// Content another surface wrote is the asker's now; the row keeps it no longer.
				if (settlement.settled === "answered" && settlement.content !== undefined) this.rows.forgetContent(id);
				resolve(settlement);
			};
			const settlementOf = (current: AskRow | undefined, why: string) => settlementOfRow(current, id, why, known);
			const at = () => this.now().toISOString();
			// Expiring is conditional too: an answer that landed first stands.
			const expire = (why: string) => finish(settlementOf(this.rows.expire(id, why, at()), why));
			if (local) {
				Promise.resolve()
					// Settled before the prompt could be shown (answered elsewhere at once): it is never shown.
					.then(() => (done ? undefined : local(inner.signal)))
					.then(
						(answer) => {
							if (done || answer === undefined) return;
							if (signal.aborted) return expire("turn cancelled");
							const claim = this.rows.answer(id, answer.answer, answer.by, at());
							if (!claim.ok) return finish(settlementOf(claim.row, claim.error));
							const landed = settlementOf(claim.row, "");
							finish(landed.settled === "answered" && answer.content !== undefined ? { ...landed, content: answer.content } : landed);
						},
						(err: unknown) => {
							if (!done) expire(signal.aborted ? "turn cancelled" : `confirmation failed: ${oneLine(err)}`);
						},
					);
			}
			const watch = async () => {
				while (!done) {
					const current = this.rows.get(id);
					if (current?.state !== "pending") return finish(settlementOf(current, "the ask is gone"));
					if (signal.aborted) return expire("turn cancelled");
					const left = expiresAt === undefined ? undefined : Date.parse(expiresAt) - this.now().getTime();
					if (left !== undefined && left <= 0) return expire(`no answer within ${seconds(row.created_at, expiresAt as string)} s`);
					const stop = left === undefined ? inner.signal : AbortSignal.any([inner.signal, AbortSignal.timeout(left)]);
					await this.wake.next(stop);
				}
			};
			watch().catch((err: unknown) => expire(`the ask could not be read: ${oneLine(err)}`));
		});
	}
}

/** How a row that is no longer pending settled the ask. */
function settlementOfRow<A extends AskAnswer | ElicitAction>(row: AskRow | undefined, id: string, why: string, known: (value: unknown) => value is A): AskSettlement<A> {
	if (row?.state === "answered" && known(row.answer)) {
		const answered: AskSettlement<A> = { settled: "answered", ask: id, answer: row.answer, by: row.answered_by ?? "unknown" };
		return row.answer_content === undefined ? answered : { ...answered, content: row.answer_content };
	}
	return { settled: "refused", ask: id, why: row?.expired_why ?? why };
}

function earliest(a: string | undefined, b: string | undefined): string | undefined {
	if (a === undefined) return b;
	if (b === undefined) return a;
	return Date.parse(a) <= Date.parse(b) ? a : b;
}

function seconds(from: string, to: string): number {
	return Math.round((Date.parse(to) - Date.parse(from)) / 1000);
}

function oneLine(err: unknown): string {
	const text = err instanceof Error ? err.message : String(err);
	return (text.split("\n").find((l) => l.trim() !== "") ?? "").slice(0, 300);
}
