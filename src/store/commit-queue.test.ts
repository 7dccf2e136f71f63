import { describe, expect, it } from "vitest";
import { CommitQueue } from "./commit-queue.js";

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
