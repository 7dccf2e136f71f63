import { describe, expect, it, vi } from "vitest";
import { CommitQueue, DEFER_DEADLINE_MS } from "./commit-queue.js";

/** A transaction log standing in for a database: writes become visible only when their batch commits. */
function fakeDb() {
	const committed: string[] = [];
	const batches: number[] = [];
	let open: string[] | undefined;
	let failNextCommit: Error | undefined;
	const queue = new CommitQueue(
		(batch) => {
			open = [];
			batch();
			if (failNextCommit) {
				const error = failNextCommit;
				failNextCommit = undefined;
				open = undefined;
				throw error;
			}
			committed.push(...open);
			open = undefined;
		},
		(body) => {
			const mark = open!.length;
			try {
				return body();
			} catch (error) {
				open!.length = mark;
				throw error;
			}
		},
		(size) => batches.push(size),
	);
	const write = (name: string) => () => {
		open!.push(name);
		return name;
	};
	return { queue, committed, batches, write, failCommit: (e: Error) => (failNextCommit = e) };
}

describe("CommitQueue", () => {
	it("commits writes that arrive together in one batch and resolves each only after the commit", async () => {
		const db = fakeDb();
		const seenAtResolve: string[][] = [];
		const all = ["a", "b", "c"].map((n) =>
			db.queue.enqueue(db.write(n)).then((v) => {
				seenAtResolve.push([...db.committed]);
				return v;
			}),
		);
		expect(db.committed).toEqual([]);
		expect(await Promise.all(all)).toEqual(["a", "b", "c"]);
		expect(db.batches).toEqual([3]);
		expect(seenAtResolve.every((seen) => seen.join() === "a,b,c")).toBe(true);
	});

	it("writes queued after a flush started go in the next batch", async () => {
		const db = fakeDb();
		await db.queue.enqueue(db.write("a"));
		await Promise.all([db.queue.enqueue(db.write("b")), db.queue.enqueue(db.write("c"))]);
		expect(db.batches).toEqual([1, 2]);
		expect(db.committed).toEqual(["a", "b", "c"]);
	});

	it("rolls back and rejects only the write that threw; the rest of its batch commits", async () => {
		const db = fakeDb();
		const refused = () => {
			db.write("half")();
			throw new Error("refused");
		};
		const results = await Promise.allSettled([db.queue.enqueue(db.write("a")), db.queue.enqueue(refused), db.queue.enqueue(db.write("b"))]);
		expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
		expect(db.committed).toEqual(["a", "b"]);
	});

	it("rejects every caller of a batch whose commit failed, and commits nothing of it", async () => {
		const db = fakeDb();
		db.failCommit(new Error("disk full"));
		const results = await Promise.allSettled([db.queue.enqueue(db.write("a")), db.queue.enqueue(db.write("b"))]);
		expect(results.map((r) => (r.status === "rejected" ? String(r.reason) : r.value))).toEqual(["Error: disk full", "Error: disk full"]);
		expect(db.committed).toEqual([]);
		expect(await db.queue.enqueue(db.write("c"))).toBe("c");
		expect(db.committed).toEqual(["c"]);
	});

	it("flush commits what is waiting at once (as close needs)", async () => {
		const db = fakeDb();
		const pending = db.queue.enqueue(db.write("a"));
		expect(db.queue.size).toBe(1);
		db.queue.flush();
		expect(db.committed).toEqual(["a"]);
		expect(db.queue.size).toBe(0);
		expect(await pending).toBe("a");
	});
});

describe("CommitQueue: deferred writes and barriers", () => {
	it("deferred writes across awaits wait for a barrier and commit with it in one batch, in order", async () => {
		const db = fakeDb();
		const heard: string[] = [];
		const a = db.queue.defer(db.write("a")).then((v) => heard.push(v));
		await new Promise((resolve) => setImmediate(resolve));
		const b = db.queue.defer(db.write("b")).then((v) => heard.push(v));
		await new Promise((resolve) => setImmediate(resolve));
		// Two turns of the event loop later nothing has asked for a commit: nothing is committed.
		expect(db.committed).toEqual([]);
		await db.queue.barrier();
		expect(db.committed).toEqual(["a", "b"]);
		expect(db.batches).toEqual([2]);
		// The writes' callers have heard before the barrier's caller goes on.
		expect(heard).toEqual(["a", "b"]);
		await Promise.all([a, b]);
	});

	it("a write that asks for a commit takes the deferred ones queued before it along, in order", async () => {
		const db = fakeDb();
		const deferred = db.queue.defer(db.write("a"));
		expect(await db.queue.enqueue(db.write("b"))).toBe("b");
		expect(await deferred).toBe("a");
		expect(db.committed).toEqual(["a", "b"]);
		expect(db.batches).toEqual([2]);
	});

	it("runNow commits what is queued and its own write in one batch, synchronously, after them", () => {
		const db = fakeDb();
		void db.queue.defer(db.write("a"));
		expect(db.queue.runNow(db.write("b"))).toBe("b");
		expect(db.committed).toEqual(["a", "b"]);
		expect(db.batches).toEqual([2]);
		expect(() =>
			db.queue.runNow(() => {
				throw new Error("refused");
			}),
		).toThrow("refused");
	});

	it("says whether what waits may touch a table: a write naming none may touch any", () => {
		const db = fakeDb();
		void db.queue.defer(db.write("m"), "messages");
		expect([db.queue.holds("messages"), db.queue.holds("events")]).toEqual([true, false]);
		void db.queue.defer(db.write("x"));
		expect(db.queue.holds("events")).toBe(true);
		db.queue.flush();
		expect(db.queue.holds("messages")).toBe(false);
	});

	it("a barrier with nothing queued resolves at once; one whose commit failed rejects", async () => {
		const db = fakeDb();
		await db.queue.barrier();
		expect(db.batches).toEqual([]);
		const deferred = db.queue.defer(db.write("a"));
		db.failCommit(new Error("disk full"));
		await expect(db.queue.barrier()).rejects.toThrow("disk full");
		await expect(deferred).rejects.toThrow("disk full");
		expect(db.committed).toEqual([]);
	});

	it("a deferred write no barrier comes for is committed after the deadline", async () => {
		vi.useFakeTimers();
		try {
			const db = fakeDb();
			const deferred = db.queue.defer(db.write("a"));
			vi.advanceTimersByTime(DEFER_DEADLINE_MS - 1);
			expect(db.committed).toEqual([]);
			vi.advanceTimersByTime(1);
			expect(db.committed).toEqual(["a"]);
			expect(await deferred).toBe("a");
		} finally {
			vi.useRealTimers();
		}
	});
});
