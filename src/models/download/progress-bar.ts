/** A one-line download progress bar, redrawn in place; shown only on a terminal. */

export interface ProgressSink {
	isTTY?: boolean;
	columns?: number;
	write(text: string): unknown;
}

export type ProgressReport = (received: number, total: number | undefined) => void;

const WIDTH = 24;

export function formatProgress(name: string, received: number, total: number | undefined): string {
	const got = megabytes(received);
	if (total === undefined || total <= 0) return `${name}  ${got} MB`;
	const fraction = Math.min(1, received / total);
	const eighths = Math.round(fraction * WIDTH * 8);
	const full = Math.floor(eighths / 8);
	const partial = eighths % 8;
	const bar = "█".repeat(full) + (partial > 0 ? "▏▎▍▌▋▊▉"[partial - 1] : "") + " ".repeat(WIDTH - full - (partial > 0 ? 1 : 0));
	return `${name}  ${String(Math.floor(fraction * 100)).padStart(3)}% ▕${bar}▏ ${got}/${megabytes(total)} MB`;
}

/** A reporter drawing on `sink`, or undefined when the sink is not a terminal (a pipe or a log gets no bar). */
export function terminalProgress(name: string, sink: ProgressSink): (ProgressReport & { done(): void }) | undefined {
	if (sink.isTTY !== true) return undefined;
	let shownPercent = -1;
	let shownMb = -1;
	const report = (received: number, total: number | undefined) => {
		const percent = total ? Math.floor((received / total) * 100) : -1;
		const mb = Math.floor(received / 1_048_576);
		// Redraw on a new percent (or a new MB when the size is unknown), not on every chunk.
		if (percent === shownPercent && (total !== undefined || mb === shownMb)) return;
		shownPercent = percent;
		shownMb = mb;
		sink.write(`\r${formatProgress(name, received, total)}`);
	};
	return Object.assign(report, { done: () => void sink.write("\n") });
}

function megabytes(bytes: number): string {
	return (bytes / 1_048_576).toFixed(1);
}
