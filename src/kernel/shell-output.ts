/**
 * Where a running command's output goes while it runs (a terminal's live tail). The evidence is
 * unchanged: the whole output is still recorded with the call and returned when the command exits;
 * this is only a view of it as it arrives, for the host.
 */
export interface ShellOutputSink {
	/** A piece of output as the command wrote it: not split at lines, not redacted. */
	write(stream: "stdout" | "stderr", text: string): void;
	/** The command is done (ran, failed to start, or was cancelled): whatever is held back is delivered now. */
	end(): void;
}
