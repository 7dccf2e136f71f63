/**
 * The console's HTTP application: the page's files, its JSON API and the live feed, behind the
 * guard (console-security.ts). It only reads the store, but for two writes the operator makes on
 * purpose: answering an ask (an approval, a release, an MCP request for input, through the AskQueue it is given) and resolving a task run's
 * needs_attention; both record "console" as who did it.
 */
import { performance } from "node:perf_hooks";
import { Hono } from "hono";
import { type SSEStreamingApi, streamSSE } from "hono/streaming";
import type { AskAnswer, AskQueue, ElicitAction, ElicitReply } from "../../runtime/asks/ask-types.js";
import { ExplainError } from "../../runtime/explain.js";
import type { Runtime } from "../../runtime/runtime.js";
import { describeAttention, runAttention } from "../../runtime/task-run-attention.js";
import type { FeedFilter, SqliteFeed } from "../../store/sqlite-feed.js";
import { shownExplanation } from "../cli/explain-render.js";
import { shownModelCall } from "../cli/explain-model-render.js";
import { type ConsoleAssets, serveAsset } from "./console-assets.js";
import { type Binding, type ConsoleSecrets, guard, securityHeaders } from "./console-security.js";
import { ASK_ANSWERS, type AuditPage, ELICIT_ACTIONS, type ExplainView, type RunView } from "./console-types.js";
import type { StoreWakeup } from "./store-wakeup.js";

/** Who the console records as having answered or resolved. */
export const CONSOLE_ACTOR = "console";

export interface ConsoleDeps {
	/** A read-only Runtime over the state dir. */
	runtime: Runtime;
	feed: SqliteFeed;
	wakeup: StoreWakeup;
	asks: AskQueue;
	/** Resolves a run's needs_attention as the console; the one-line reason when it is refused. */
	resolveRun(runId: string): Promise<{ ok: true; state: string } | { ok: false; error: string }>;
	assets: ConsoleAssets;
	binding: Binding;
	secrets: ConsoleSecrets;
	/** How long one stream stays open before the server ends it and the browser reconnects after its last id; default 5 minutes. */
	streamLifetimeMs?: number;
}

/** Events a fresh page (no Last-Event-ID) is sent before the live ones. */
export const FEED_BACKLOG = 500;
/** Rows one keyset read of the feed looks at. */
const FEED_PAGE = 500;
const AUDIT_PAGE_DEFAULT = 50;
const AUDIT_PAGE_MAX = 500;
/** A comment line this often keeps proxies and the browser from taking a quiet feed for a dead one. */
const KEEPALIVE_MS = 15_000;
/**
 * Streams are ended now and then, so none holds a connection (and whatever a proxy keeps for it)
 * forever; the browser's EventSource reconnects by itself, after its last id.
 */
const STREAM_LIFETIME_MS = 5 * 60_000;
/** The reconnection delay the server asks browsers for, in ms. */
const RETRY_MS = 500;

class BadRequest extends Error {}

function positiveInt(value: string | undefined, name: string): number | undefined {
	if (value === undefined || value === "") return undefined;
	if (!/^\d+$/.test(value)) throw new BadRequest(`${name} must be a whole number >= 0, got "${value.slice(0, 40)}"`);
	return Number(value);
}

function feedFilter(query: (name: string) => string | undefined): FeedFilter {
	const filter: FeedFilter = {};
	for (const name of ["session", "kind", "decision"] as const) {
		const value = query(name);
		if (value !== undefined && value !== "") filter[name] = value;
	}
	return filter;
}

export function createConsoleApp(deps: ConsoleDeps): Hono {
	const app = new Hono();
	app.use("*", securityHeaders());
	app.use("*", guard(deps.binding, deps.secrets));
	app.onError((err, c) => {
		if (err instanceof BadRequest || err instanceof ExplainError) return c.json({ error: err.message }, 400);
		return c.json({ error: err instanceof Error ? err.message.split("\n")[0] : String(err) }, 500);
	});

	app.get("/api/sessions", async (c) => c.json(await deps.runtime.listSessions(500)));

	app.get("/api/runs", async (c) => {
		const store = deps.runtime.store;
		const views: RunView[] = [];
		for (const run of await store.listTaskRuns(500)) {
			const open = describeAttention(await runAttention(store, run, new Set()));
			views.push({ ...run, ...(open === undefined ? {} : { open }) });
		}
		// What needs the operator comes first; then newest first.
		const needs = (r: RunView) => (r.open !== undefined || r.state === "needs_attention" ? 0 : 1);
		views.sort((a, b) => needs(a) - needs(b) || b.updated_at.localeCompare(a.updated_at));
		return c.json(views);
	});

	app.post("/api/runs/:id/resolve", async (c) => {
		const result = await deps.resolveRun(c.req.param("id"));
		return result.ok ? c.json(result) : c.json({ error: result.error }, 409);
	});

	app.get("/api/audit", (c) => {
		const limit = Math.min(positiveInt(c.req.query("limit"), "limit") ?? AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX);
		if (limit < 1) throw new BadRequest("limit must be at least 1");
		const before = positiveInt(c.req.query("before"), "before");
		const session = c.req.query("session") || undefined;
		const records = deps.feed.auditPage({ limit, ...(before === undefined ? {} : { before }), ...(session === undefined ? {} : { session }) });
		const last = records[records.length - 1];
		const page: AuditPage = { records, ...(records.length === limit && last !== undefined && last.seq > 1 ? { next: last.seq } : {}) };
		return c.json(page);
	});

	app.get("/api/audit/verify", async (c) => c.json(await deps.runtime.verifyAudit()));

	app.get("/api/explain/:id", async (c) => {
		const id = c.req.param("id");
		const session = c.req.query("session") || undefined;
		const options = session === undefined ? {} : { session };
		const model = await deps.runtime.explainModel(id, options);
		const view: ExplainView = model ? { text: shownModelCall(model), tree: model } : await callView(deps.runtime, id, options);
		return c.json(view);
	});

	app.get("/api/asks", (c) => c.json(deps.asks.pending()));

	app.post("/api/asks/:id", async (c) => {
		const body = await jsonBody(c.req.raw);
		const { answer, content } = (body ?? {}) as { answer?: unknown; content?: unknown };
		// An MCP server's request for input: accept carries its fields, checked against its schema by the queue.
		if (typeof answer === "string" && ELICIT_ACTIONS.includes(answer as ElicitAction)) {
			const reply = (answer === "accept" ? { action: "accept", content } : { action: answer }) as ElicitReply;
			const replied = deps.asks.reply(c.req.param("id"), reply, CONSOLE_ACTOR);
			return replied.ok ? c.json(replied) : c.json({ error: replied.error }, 409);
		}
		if (typeof answer !== "string" || !ASK_ANSWERS.includes(answer as AskAnswer)) {
			throw new BadRequest(`answer must be one of ${ASK_ANSWERS.join(", ")} (or, for a request for input, ${ELICIT_ACTIONS.join(", ")})`);
		}
		const result = deps.asks.answer(c.req.param("id"), answer as AskAnswer, CONSOLE_ACTOR);
		return result.ok ? c.json(result) : c.json({ error: result.error }, 409);
	});

	app.get("/api/feed", (c) => {
		const filter = feedFilter((name) => c.req.query(name));
		// A reconnecting EventSource sends the last id it saw; a page resuming a paused feed says where it stopped.
		const resume = positiveInt(c.req.header("last-event-id") ?? c.req.query("after"), "Last-Event-ID");
		let cursor = resume ?? deps.feed.tailStart(FEED_BACKLOG);
		return streamSSE(c, (stream) =>
			follow(stream, deps.wakeup, deps.streamLifetimeMs ?? STREAM_LIFETIME_MS, async () => {
				const batch = deps.feed.eventsAfter(cursor, FEED_PAGE, filter);
				for (const row of batch.rows) await stream.writeSSE({ id: String(row.id), event: "feed", data: JSON.stringify(row) });
				cursor = batch.cursor;
				return batch.more;
			}),
		);
	});

	app.get("/api/asks/stream", (c) => {
		let sent: string | undefined;
		return streamSSE(c, (stream) =>
			follow(stream, deps.wakeup, deps.streamLifetimeMs ?? STREAM_LIFETIME_MS, async () => {
				const pending = JSON.stringify(deps.asks.pending());
				if (pending !== sent) {
					sent = pending;
					await stream.writeSSE({ event: "asks", data: pending });
				}
				return false;
			}),
		);
	});

	app.get("*", (c) => serveAsset(deps.assets, c.req.path));
	return app;
}

/**
 * Runs `step` once, then again after each wake-up of the store (at once while it says more rows
 * wait), until the client goes away or the stream's lifetime is over; a quiet stream gets a
 * keep-alive comment now and then.
 */
async function follow(stream: SSEStreamingApi, wakeup: StoreWakeup, lifetimeMs: number, step: () => Promise<boolean>): Promise<void> {
	const ends = performance.now() + lifetimeMs;
	let waiting: (() => void) | undefined;
	// Set by every wake-up and cleared before each step, so a commit landing during a step makes another.
	let dirty = false;
	const wakeUp = () => {
		dirty = true;
		waiting?.();
	};
	const unsubscribe = wakeup.subscribe(wakeUp);
	stream.onAbort(() => {
		unsubscribe();
		wakeUp();
	});
	try {
		await stream.write(`retry: ${RETRY_MS}\n\n`);
		while (!stream.aborted && performance.now() < ends) {
			dirty = false;
			const more = await step();
			if (more || dirty) continue;
			const quiet = await new Promise<boolean>((resolve) => {
				const timer = setTimeout(() => resolve(true), Math.max(0, Math.min(KEEPALIVE_MS, ends - performance.now())));
				waiting = () => {
					clearTimeout(timer);
					resolve(false);
				};
			});
			waiting = undefined;
			if (quiet && !stream.aborted && performance.now() < ends) await stream.write(": keepalive\n\n");
		}
	} finally {
		unsubscribe();
	}
}

async function callView(runtime: Runtime, id: string, options: { session?: string }): Promise<ExplainView> {
	const tree = await runtime.explain(id, options);
	return { text: shownExplanation(tree), tree };
}

async function jsonBody(request: Request): Promise<unknown> {
	if (!(request.headers.get("content-type") ?? "").startsWith("application/json")) throw new BadRequest("the body must be JSON (Content-Type: application/json)");
	const text = await request.text();
	if (text.length > 64 * 1024) throw new BadRequest("the body is larger than 64 KiB");
	try {
		return JSON.parse(text) as unknown;
	} catch {
		throw new BadRequest("the body is not valid JSON");
	}
}
