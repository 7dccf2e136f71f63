/**
 * A single-consumer queue that turns pushes from the turn loop (which may run tool calls in
 * parallel) into the ordered async iteration a host reads from `session.run()`.
 */
export class EventChannel<T> {
	private readonly items: T[] = [];
	private waiter: (() => void) | undefined;
	private closed = false;

	push(item: T): void {
		this.items.push(item);
		this.wake();
	}

	close(): void {
		this.closed = true;
		this.wake();
	}

	async *drain(): AsyncGenerator<T, void, undefined> {
		for (;;) {
			while (this.items.length > 0) yield this.items.shift() as T;
			if (this.closed) return;
			await new Promise<void>((resolve) => {
				this.waiter = resolve;
			});
		}
	}

	private wake(): void {
		const w = this.waiter;
		this.waiter = undefined;
		w?.();
	}
}
