/** A benchmark that cannot produce a trustworthy figure: bad options, or a run that did not do the work it times. */
export class BenchError extends Error {
	override name = "BenchError";
}
