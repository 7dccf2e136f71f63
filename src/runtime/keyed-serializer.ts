/**
 * Runs tasks so that tasks with different keys overlap and tasks with the same key run one
 * after another: different tools in parallel, calls to one tool instance serialized.
 */
export async function runByKey<T, R>(items: readonly T[], keyOf: (item: T) => string, run: (item: T) => Promise<R>): Promise<R[]> {
	const tails = new Map<string, Promise<unknown>>();
	const results = items.map((item) => {
		const key = keyOf(item);
		const prev = tails.get(key) ?? Promise.resolve();
		const next = prev.then(() => run(item));
		tails.set(
			key,
			next.catch(() => undefined),
		);
		return next;
	});
	return Promise.all(results);
}
