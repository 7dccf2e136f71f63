/**
 * The host callbacks a Warden session of an ACP session is opened with: its events, asks and
 * release requests go to the ACP session once it exists (events arrive from its first record),
 * file contents go through the client's fs as far as the client offers it, and a sandboxed command
 * runs in the client's terminal when it offers terminals (client-terminals.ts), and an MCP server's
 * request for input is a form in the editor when it can show one (client-elicitation.ts).
 */
import type { EditorFiles } from "../../providers/editor-fs-provider.js";
import type { OpenSessionOptions } from "../../runtime/runtime.js";
import type { AcpConnectionState, AcpSession } from "./acp-session.js";
import { clientElicitation } from "./client-elicitation.js";
import { clientTerminals } from "./client-terminals.js";

/** The session's host callbacks, routed to the ACP session once it exists (events arrive from its first record). */
export function sessionCallbacks(acp: () => AcpSession | undefined, connection: AcpConnectionState): Pick<OpenSessionOptions, "confirm" | "release" | "onEvent" | "files" | "terminals" | "elicit"> {
	const files: EditorFiles | undefined = lazyFiles(acp, connection);
	const terminals = clientTerminals(acp, connection);
	const elicit = clientElicitation(acp, connection);
	return {
		onEvent: (event) => acp()?.onEvent(event),
		confirm: async (request, signal) => {
			const session = acp();
			return session ? session.askPermission(request, signal) : false;
		},
		release: async (request, signal) => {
			const session = acp();
			return session ? session.askRelease(request, signal) : false;
		},
		...(files ? { files } : {}),
		...(terminals ? { terminals } : {}),
		...(elicit ? { elicit } : {}),
	};
}

/** The client's fs as far as it offers it (undefined when it offers none), bound to the session's id. */
function lazyFiles(acp: () => AcpSession | undefined, connection: AcpConnectionState): EditorFiles | undefined {
	const fs = connection.capabilities.fs;
	if (!fs?.readTextFile && !fs?.writeTextFile) return undefined;
	const id = () => {
		const session = acp();
		if (!session) throw new Error("the ACP session is not open yet");
		return session.id;
	};
	return {
		name: "acp-client",
		...(fs.readTextFile
			? { readTextFile: async (path: string) => (await connection.client.request("fs/read_text_file", { sessionId: id(), path })).content }
			: {}),
		...(fs.writeTextFile
			? {
					writeTextFile: async (path: string, content: string) => {
						await connection.client.request("fs/write_text_file", { sessionId: id(), path, content });
					},
				}
			: {}),
	};
}
