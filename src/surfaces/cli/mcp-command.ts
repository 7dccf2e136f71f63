/**
 * `warden mcp list|show|approve|revoke|login|logout`: the MCP servers the layered config gives this workspace,
 * each tool's review (approved, new, changed, excluded; flagged content), the approved definition
 * pinned by digest, revocation, and OAuth authorization of remote servers. The work is in mcp-actions.ts, loaded when a command runs.
 */
import type { Command } from "commander";
import { EXIT } from "./cli-error.js";

export interface McpCliFlags {
	workspace: string;
	config?: string;
	projectConfig: boolean;
	stateDir?: string;
	json?: boolean;
	digest?: string;
}

function common(command: Command): Command {
	return command
		.option("--workspace <dir>", "the workspace whose servers and approvals are meant", ".")
		.option("--config <file>", "user config file (default $WARDEN_CONFIG or ~/.config/warden/config.yaml)")
		.option("--no-project-config", "ignore the workspace's .warden/config.yaml and .mcp.json")
		.option("--state-dir <dir>", "state directory (default $WARDEN_HOME)");
}

const actions = () => import("./mcp-actions.js");
const loginActions = () => import("./mcp-login-actions.js");

export function registerMcpCommand(program: Command, out: (text: string) => void): void {
	const mcp = program.command("mcp").description("MCP servers: what they offer, what was approved in this workspace, approve and revoke tool definitions");
	common(mcp.command("list"))
		.description("each configured server, its tools and its resources, templates and prompts: approved, new (never approved), changed since approval (withheld), excluded; flagged content marked")
		.option("--json", "one server per line as JSON")
		.action(async (flags: McpCliFlags) => {
			await (await actions()).listAction(flags, out);
			process.exitCode = EXIT.ok;
		});
	common(mcp.command("show"))
		.description("a server's tool definitions in full, with what the review flagged and, for a changed one, the diff from the approved definition")
		.argument("<server>", "the server's name in mcpServers")
		.argument("[tool]", "one tool, or an entry's key: prompt:<name>, resource:<uri>, resource-template:<template> (default: all)")
		.option("--json", "the review as JSON")
		.action(async (server: string, tool: string | undefined, flags: McpCliFlags) => {
			await (await actions()).showAction(server, tool, flags, out);
			process.exitCode = EXIT.ok;
		});
	common(mcp.command("approve"))
		.description("pin the definitions the server lists now (all new and changed ones, or the tools named): only pinned tools are offered to the model")
		.argument("<server>", "the server's name in mcpServers")
		.argument("[tools...]", "tools or entry keys (prompt:<name>, resource:<uri>, resource-template:<template>) to approve (default: every new or changed one)")
		.option("--digest <sha256>", "approve only if the one tool named still has this digest (as `warden mcp show` printed it)")
		.action(async (server: string, tools: string[], flags: McpCliFlags) => {
			await (await actions()).approveAction(server, tools, flags, out);
			process.exitCode = EXIT.ok;
		});
	common(mcp.command("revoke"))
		.description("revoke the approval of one tool or of all of a server's tools: they are withheld from the next session (kept and audited)")
		.argument("<server>", "the server's name")
		.argument("[tool]", "one tool (default: all of the server's)")
		.action(async (server: string, tool: string | undefined, flags: McpCliFlags) => {
			await (await actions()).revokeAction(server, tool, flags, out);
			process.exitCode = EXIT.ok;
		});
	common(mcp.command("login"))
		.description("authorize Warden at a remote server configured with oauth (OAuth 2.1 + PKCE, loopback redirect): prints the URL to open; tokens are kept in the state dir, mode 0600")
		.argument("<server>", "the server's name in mcpServers")
		.action(async (server: string, flags: McpCliFlags) => {
			await (await loginActions()).loginAction(server, flags, out, (text) => process.stderr.write(text));
			process.exitCode = EXIT.ok;
		});
	common(mcp.command("logout"))
		.description("forget the OAuth registration and tokens stored for a server")
		.argument("<server>", "the server's name in mcpServers")
		.action(async (server: string, flags: McpCliFlags) => {
			await (await loginActions()).logoutAction(server, flags, out);
			process.exitCode = EXIT.ok;
		});
}
