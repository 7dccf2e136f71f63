/**
 * Standard output through a pipe. Writes to a pipe are asynchronous: what a slow reader has not
 * taken yet waits in the stream, and a process that exits at once loses it. So the CLI sets its
 * status, waits until the stream has handed every byte to the pipe, and only then exits.
 *
 * A reader that goes away (`| head -1`) makes the next write fail with EPIPE. That is no error of
 * Warden's: nothing more can be delivered, so the command ends quietly, without a stack trace. A
 * command that must wind down first (a run settles its session) registers a handler; any other
 * ends at once.
 */
import { EXIT } from "./cli-error.js";

type Handler = () => void;

const handlers = new Set<Handler>();
const watched = new WeakSet<NodeJS.WritableStream>();
let gone = false;

/** Whether the reader of standard output went away. */
export function readerGone(): boolean {
	return gone;
}

/** Runs `handler` (once) if the reader goes away while it is registered; the returned function unregisters it. */
export function onReaderGone(handler: Handler): () => void {
	if (gone) {
		handler();
		return () => {};
	}
	handlers.add(handler);
	return () => handlers.delete(handler);
}

/** Installs the EPIPE handling on `stream` (once per stream). */
export function watchReader(stream: NodeJS.WriteStream, exit: (code: number) => void = (code) => process.exit(code)): void {
	if (watched.has(stream)) return;
	watched.add(stream);
	stream.on("error", (err: NodeJS.ErrnoException) => {
		if (err.code !== "EPIPE" && err.code !== "ERR_STREAM_DESTROYED") {
			process.stderr.write(`warden: cannot write to standard output: ${err.message}\n`);
		}
		if (gone) return;
		gone = true;
		// The output was not all delivered: the status says so, whichever way the command ends.
		process.exitCode = EXIT.failed;
		if (handlers.size === 0) {
			exit(EXIT.failed);
			return;
		}
		for (const handler of [...handlers]) handler();
		handlers.clear();
	});
}

/** Resolves once `stream` has handed everything written so far to the file or pipe (or can take nothing more). */
export function flushed(stream: NodeJS.WriteStream): Promise<void> {
	if (stream.destroyed || stream.writableLength === 0) return Promise.resolve();
	return new Promise((resolve) => {
		const done = () => {
			stream.off("close", done);
			resolve();
		};
		stream.once("close", done);
		// Writes complete in order: this empty one's callback runs after every earlier write has.
		stream.write("", () => done());
	});
}
