/**
 * The capability layer's verdict on one tool call, as its kernel primitives would ask for it:
 * the (resource, right) pairs the call's path or command becomes, and for each the grant that
 * admits it or the reason it is refused. `warden policy check` prints it under the tool-level
 * decision, because a call the rules allow can still be refused at the primitive.
 */
import { homedir } from "node:os";
import type { Authority, CallContext } from "../kernel/authority/authority.js";
import { CapabilityDeniedError, type DenialReason } from "../kernel/authority/authority-errors.js";
import type { Capability } from "../kernel/authority/capability.js";
import { type AccessRequest, fsResource, type Right } from "../kernel/authority/resource.js";
import { resolveRealPath } from "../kernel/real-path.js";
import { resolveWorkspacePath } from "../kernel/workspace-paths.js";
import { lstatIfExists } from "../providers/fs-provider.js";
import type { ToolDefinition } from "../tools/tool.js";

export interface CapabilityCheck {
	resource: string;
	right: Right;
	admitted: boolean;
	/** The grant that admits it, or the one whose limit refused it. */
	grant?: string;
	/** Where the admitting grant came from: `preset <mode>`, `host grant`, or its issuer. */
	source?: string;
	reason?: DenialReason;
	/** One line: `allowed by grant … (…)` or `refused: …`. */
	verdict: string;
}

export interface CapabilityVerdict {
	admitted: boolean;
	/** sha256 of the task ceiling's manifest. */
	ceiling: string;
	/** The call counted as approved, so an `ask` grant was treated as satisfied. */
	assumedApproved: boolean;
	checks: CapabilityCheck[];
	/** Why there is nothing to check, when the call reaches no primitive the checker can name. */
	note?: string;
}

export function grantSource(grant: Pick<Capability, "issuer">): string {
	if (grant.issuer.startsWith("mode:")) return `preset ${grant.issuer.slice("mode:".length)}`;
	return grant.issuer === "host" ? "host grant" : grant.issuer;
}

/** The rights a file tool's primitives ask for: edit_file reads then writes. */
function fileRights(tool: ToolDefinition): Right[] {
	if (tool.name === "edit_file") return ["read", "write"];
	return tool.readOnly ? ["read"] : ["write"];
}

async function fileSize(path: string): Promise<number | undefined> {
	// The path is already the real target, so lstat sees the file itself.
	try {
		const st = await lstatIfExists(path);
		return st?.type === "file" ? st.size : undefined;
	} catch {
		return undefined;
	}
}

/** The requests the call's primitives would make, or a note saying why none can be named. */
async function callRequests(
	authority: Authority,
	tool: ToolDefinition,
	args: Record<string, unknown>,
	workspace: string,
): Promise<{ requests: AccessRequest[] } | { note: string }> {
	const subject = tool.ruleSubject(args);
	if (subject?.kind === "command" && typeof subject.value === "string") {
		return { requests: authority.shellRequests(subject.value, { workspace, home: homedir(), resolvePath: resolveRealPath }) };
	}
	if (subject?.kind !== "path" && subject?.kind !== "pattern") return { note: "the call names no resource" };
	// A glob pattern searches from the workspace root.
	const path = subject.kind === "path" && typeof subject.value === "string" ? subject.value : ".";
	let resolved: { rel: string; abs: string };
	try {
		resolved = await resolveWorkspacePath({ given: workspace, real: workspace }, path);
	} catch (err) {
		return { note: `${(err as Error).message.split("\n")[0]}: the primitive refuses it before any grant is consulted` };
	}
	const size = await fileSize(resolved.abs);
	return {
		requests: fileRights(tool).map((right): AccessRequest => {
			const request: AccessRequest = { resource: fsResource(resolved.rel), right };
			const bytes = right === "read" ? size : writtenBytes(tool, args, size);
			if (bytes !== undefined) request.bytes = bytes;
			return request;
		}),
	};
}

function writtenBytes(tool: ToolDefinition, args: Record<string, unknown>, size: number | undefined): number | undefined {
	if (typeof args.content === "string") return Buffer.byteLength(args.content, "utf8");
	if (tool.name === "edit_file" && size !== undefined && typeof args.old === "string" && typeof args.new === "string") {
		return size - Buffer.byteLength(args.old, "utf8") + Buffer.byteLength(args.new, "utf8");
	}
	return undefined;
}

/**
 * Checks each request in turn on `authority`, spending uses as a run would, so a counted grant
 * that one sub-command uses up shows as used up for the next. Use a fresh Authority per call.
 */
export async function capabilityVerdict(
	authority: Authority,
	tool: ToolDefinition,
	args: Record<string, unknown>,
	workspace: string,
	call: CallContext,
): Promise<CapabilityVerdict> {
	const verdict: CapabilityVerdict = { admitted: true, ceiling: authority.ceiling.hash, assumedApproved: call.approved, checks: [] };
	const found = await callRequests(authority, tool, args, workspace);
	if ("note" in found) return { ...verdict, admitted: false, note: found.note };
	for (const request of found.requests) {
		try {
			const [grant] = authority.admit([request], call);
			const source = grantSource(grant!);
			verdict.checks.push({
				resource: request.resource,
				right: request.right,
				admitted: true,
				grant: grant!.id,
				source,
				verdict: `allowed by grant ${grant!.id} (${source})`,
			});
		} catch (err) {
			if (!(err instanceof CapabilityDeniedError)) throw err;
			verdict.admitted = false;
			const check: CapabilityCheck = { resource: request.resource, right: request.right, admitted: false, reason: err.reason, verdict: `refused: ${err.why}` };
			if (err.grant !== undefined) check.grant = err.grant;
			verdict.checks.push(check);
		}
	}
	return verdict;
}
