import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../kernel/evidence/store-rows.js";
import type { SqliteStore } from "../../store/sqlite-store.js";
import { ConsoleClient, type SseMessage } from "./console-client.js";
import { type RunningConsole, startConsole } from "./console-server.js";
import type { FeedItem, PendingAsk } from "./console-types.js";

let root: string;
let stateDir: string;
let store: SqliteStore;
let running: RunningConsole;

const asks = { pending: (): PendingAsk[] => [], answer: () => ({ ok: false as const, error: "none" }), reply: () => ({ ok: false as const, error: "none" }) };

beforeEach(async () => {
	root = mkdtempSync(join(tmpdir(), "warden-console-server-"));
	stateDir = join(root, "state");
	store = openSqliteStore(stateDir);
	const assetDir = join(root, "page");
	mkdirSync(assetDir);
	writeFileSync(join(assetDir, "index.html"), "<!doctype html>");
	running = await startConsole({ stateDir, asks, assetDir });
});

afterEach(async () => {
	await running.close();
	await store.close();
	rmSync(root, { recursive: true, force: true });
});

const event = (i: number) => ({ session: "s-1", kind: "tool.proposed", turn: 1, time: new Date().toISOString(), payload: { call_id: `call_${i}`, tool: "read_file", arguments: {} } });

/** Resolves once `messages` holds `count` feed messages. */
function until(messages: SseMessage[], count: number): Promise<void> {
	return new Promise((resolve) => {
		const check = setInterval(() => {
			if (messages.filter((m) => m.event === "feed").length >= count) {
				clearInterval(check);
				resolve();
			}
		}, 5);
	});
}

describe("the running console", () => {
	it("listens on 127.0.0.1 and prints a URL whose token opens it", async () => {
		expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32}$/);
		expect(running.warning).toBeUndefined();
		const client = await ConsoleClient.login(running.url);
		expect(await client.get("/api/sessions")).toEqual([]);
		await expect(ConsoleClient.login(`${running.origin}/?token=wrong`)).rejects.toThrow("HTTP 401");
	});

	it("pushes events appended after the page connected, and resumes after the last id without a gap or a repeat", async () => {
		for (let i = 0; i < 5; i++) await store.appendEvent(event(i));
		const client = await ConsoleClient.login(running.url);
		const first: SseMessage[] = [];
		const stream = client.stream("/api/feed", (m) => first.push(m));
		await until(first, 5);
		for (let i = 5; i < 12; i++) await store.appendEvent(event(i));
		await until(first, 12);
		stream.close();
		await stream.closed;
		// Appended while no page is connected: the resumed feed must bring exactly these.
		for (let i = 12; i < 20; i++) await store.appendEvent(event(i));
		const lastId = first.filter((m) => m.event === "feed").at(-1)?.id;
		const second: SseMessage[] = [];
		const resumed = client.stream("/api/feed", (m) => second.push(m), lastId);
		await until(second, 8);
		resumed.close();
		const calls = [...first, ...second].filter((m) => m.event === "feed").map((m) => (JSON.parse(m.data) as FeedItem).event as { payload: { call_id: string } });
		expect(calls.map((e) => e.payload.call_id)).toEqual(Array.from({ length: 20 }, (_, i) => `call_${i}`));
		const ids = [...first, ...second].filter((m) => m.event === "feed").map((m) => Number(m.id));
		expect(ids).toEqual([...ids].sort((a, b) => a - b));
	});

	it("filters the feed by session on the server", async () => {
		await store.appendEvent({ ...event(0), session: "s-other" });
		await store.appendEvent(event(1));
		const client = await ConsoleClient.login(running.url);
		const got: SseMessage[] = [];
		const stream = client.stream("/api/feed?session=s-1", (m) => got.push(m));
		await until(got, 1);
		await store.appendEvent({ ...event(2), session: "s-other" });
		await store.appendEvent(event(3));
		await until(got, 2);
		stream.close();
		expect(got.map((m) => (JSON.parse(m.data) as FeedItem).session)).toEqual(["s-1", "s-1"]);
	});

	it("warns when told to listen on an address other than loopback", async () => {
		const wide = await startConsole({ stateDir, asks, host: "0.0.0.0", assetDir: join(root, "page") });
		try {
			expect(wide.warning).toContain("0.0.0.0");
		} finally {
			await wide.close();
		}
	});
});
