/**
 * Kernel refusals the model can act on (a missing file, a binary file, a malformed URL, a cancelled call) become
 * ToolErrors, so they reach the model as a tool failure rather than an internal error. Workspace
 * escapes pass through unchanged: the runtime reports those itself.
 */
import { FsPrimitiveError, PrimitiveCancelledError } from "../kernel/kernel-errors.js";
import { McpPrimitiveError } from "../kernel/kernel-mcp.js";
import { MemoryPrimitiveError } from "../kernel/memory/memory-request.js";
import { NetPrimitiveError } from "../kernel/kernel-net.js";
import { SandboxUnavailableError } from "../kernel/kernel-shell.js";
import { ToolError } from "./tool.js";

export function asToolFailure(err: unknown): unknown {
	if (err instanceof FsPrimitiveError || err instanceof PrimitiveCancelledError || err instanceof NetPrimitiveError || err instanceof McpPrimitiveError || err instanceof MemoryPrimitiveError || err instanceof SandboxUnavailableError) {
		return new ToolError(err.message);
	}
	return err;
}

/** Runs a tool body, translating kernel refusals on the way out. */
export async function withKernelFailures<T>(fn: () => Promise<T>): Promise<T> {
	try {
		return await fn();
	} catch (err) {
		throw asToolFailure(err);
	}
}
