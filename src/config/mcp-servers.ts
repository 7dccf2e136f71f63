/**
 * The `mcpServers` block of each layer, as the servers a session starts. Layers: the user config,
 * then — only in a workspace the user trusts — the project config and the workspace's `.mcp.json`;
 * a later layer's entry of the same name replaces an earlier one. A project's server runs in the
 * shell sandbox unless its entry says `sandbox: false`. A stdio server's environment is a minimal
 * base taken from the host plus exactly what its entry names (`${VAR}` reads the host's VAR); no
 * other variable of Warden's environment, a secret-named one least of all, reaches it.
 */
import { readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { reasonText } from "../kernel/admission/shell/reason-text.js";
import { isSecretName } from "../kernel/flow/secret-names.js";
import { mcpServerNameProblem } from "../tools/mcp-tool-name.js";
import type { McpServerConfig } from "../runtime/mcp/mcp-server-config.js";
import { ConfigError } from "./config-error.js";
import { configProblem } from "./config-schema.js";
import type { ConfigLayer, IgnoredConfigItem, McpServerEntry } from "./config-types.js";

/** What a server process gets from the host whatever its entry says: enough to find programs and speak the locale. */
export const MCP_BASE_ENV = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TZ", "TMPDIR", "SYSTEMROOT"] as const;

export const MCP_JSON = ".mcp.json";

const REFERENCE = /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** A layer's servers with where they came from, before they are turned into McpServerConfig. */
export interface McpServerLayer {
	source: string;
	/** Whether the layer is the project's (config or .mcp.json): its servers are sandboxed by default. */
	project: boolean;
	servers: Record<string, McpServerEntry>;
}

/** The workspace's `.mcp.json` as a layer, or undefined when there is none; a bad file is a ConfigError naming it. */
export function readMcpJson(workspace: string): McpServerLayer | undefined {
	const file = join(workspace, MCP_JSON);
	let text: string;
	try {
		text = readFileSync(file, "utf8");
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
		throw new ConfigError(`${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
	}
	let data: unknown;
	try {
		data = JSON.parse(text);
	} catch (err) {
		throw new ConfigError(`${file}: not valid JSON (${reasonText(String((err as Error).message))})`);
	}
	if (typeof data !== "object" || data === null || Array.isArray(data)) throw new ConfigError(`${file}: must be a JSON object with an mcpServers key`);
	// Checked against the same schema as the config files' mcpServers block.
	const problem = configProblem({ mcpServers: (data as { mcpServers?: unknown }).mcpServers ?? {} });
	if (problem !== undefined) throw new ConfigError(`${file}: ${reasonText(problem)}`);
	return { source: `${MCP_JSON} ${file}`, project: true, servers: ((data as { mcpServers?: Record<string, McpServerEntry> }).mcpServers ?? {}) as Record<string, McpServerEntry> };
}

function expand(value: string, env: NodeJS.ProcessEnv, where: string): string {
	return value.replace(REFERENCE, (_m, name: string) => {
		const found = env[name];
		if (found === undefined) throw new ConfigError(`${where} names \${${name}}, which is not set`);
		return found;
	});
}

/** The environment a stdio server starts with: the base, then its entry's own variables. */
export function mcpServerEnv(entry: McpServerEntry, hostEnv: NodeJS.ProcessEnv, where: string): Record<string, string> {
	const env: Record<string, string> = {};
	for (const name of MCP_BASE_ENV) {
		const value = hostEnv[name];
		if (value !== undefined && !isSecretName(name)) env[name] = value;
	}
	for (const [name, value] of Object.entries(entry.env ?? {})) env[name] = expand(value, hostEnv, `${where}.env.${name}`);
	return env;
}

/** The entry's OAuth settings; with another Authorization configured too, which one is meant is ambiguous: refused. */
function oauthSpec(entry: McpServerEntry, headers: Record<string, string>, where: string): { scope?: string; clientId?: string } | undefined {
	if (entry.oauth === undefined || entry.oauth === false) return undefined;
	if (Object.keys(headers).some((h) => h.toLowerCase() === "authorization")) throw new ConfigError(`${where}: oauth does not go with bearer_token_env or an Authorization header: name one way to authorize`);
	if (entry.oauth === true) return {};
	return { ...(entry.oauth.scope ? { scope: entry.oauth.scope } : {}), ...(entry.oauth.client_id ? { clientId: entry.oauth.client_id } : {}) };
}

function serverConfig(name: string, entry: McpServerEntry, layer: McpServerLayer, workspace: string, hostEnv: NodeJS.ProcessEnv): McpServerConfig {
	const where = `${layer.source}: mcpServers.${name}`;
	const badName = mcpServerNameProblem(name);
	if (badName !== undefined) throw new ConfigError(`${where}: the server name ${JSON.stringify(name)} cannot name its tools unambiguously: ${badName}`);
	const remote = entry.url !== undefined;
	if (remote === (entry.command !== undefined)) throw new ConfigError(`${where} needs exactly one of command (a stdio server) or url (a remote one)`);
	const type = entry.type ?? (remote ? "http" : "stdio");
	if ((type === "stdio") === remote) throw new ConfigError(`${where}: type ${type} does not go with ${remote ? "url" : "command"}`);
	const common = {
		name,
		sandbox: entry.sandbox ?? layer.project,
		source: layer.source,
		...(entry.include_tools ? { includeTools: entry.include_tools } : {}),
		...(entry.exclude_tools ? { excludeTools: entry.exclude_tools } : {}),
		...(entry.network !== undefined ? { network: entry.network } : {}),
		...(entry.timeout_ms !== undefined ? { timeoutMs: entry.timeout_ms } : {}),
	};
	if (!remote) {
		if (entry.headers || entry.bearer_token_env || entry.oauth) throw new ConfigError(`${where}: headers, bearer_token_env and oauth are for a remote server (url)`);
		const cwd = entry.cwd === undefined ? workspace : isAbsolute(entry.cwd) ? entry.cwd : resolve(workspace, entry.cwd);
		return { ...common, transport: { type: "stdio", command: entry.command!, args: entry.args ?? [], env: mcpServerEnv(entry, hostEnv, where), cwd } };
	}
	if (entry.command !== undefined || entry.args || entry.env || entry.cwd) throw new ConfigError(`${where}: command, args, env and cwd are for a stdio server`);
	let url: URL;
	try {
		url = new URL(expand(entry.url!, hostEnv, `${where}.url`));
	} catch (err) {
		if (err instanceof ConfigError) throw err;
		throw new ConfigError(`${where}.url ${JSON.stringify(entry.url)} is not a URL`);
	}
	if (url.protocol !== "http:" && url.protocol !== "https:") throw new ConfigError(`${where}.url must be http: or https:, not ${url.protocol}`);
	const headers: Record<string, string> = {};
	for (const [header, value] of Object.entries(entry.headers ?? {})) headers[header] = expand(value, hostEnv, `${where}.headers.${header}`);
	if (entry.bearer_token_env !== undefined) {
		const token = hostEnv[entry.bearer_token_env];
		if (!token) throw new ConfigError(`${where}.bearer_token_env names ${entry.bearer_token_env}, which is not set`);
		headers.Authorization = `Bearer ${token}`;
	}
	const oauth = oauthSpec(entry, headers, where);
	return { ...common, transport: { type: type === "sse" ? "sse" : "http", url: url.href, headers, ...(oauth ? { oauth } : {}) } };
}

/**
 * The servers of every layer that may start, each later layer's entry replacing an earlier one of
 * the same name; a project layer from a workspace the user does not trust adds nothing (noted in `ignored`).
 */
export function resolveMcpServers(layers: readonly McpServerLayer[], trustedProject: boolean, workspace: string, hostEnv: NodeJS.ProcessEnv, ignored: IgnoredConfigItem[]): McpServerConfig[] {
	const byName = new Map<string, McpServerConfig>();
	for (const layer of layers) {
		for (const [name, entry] of Object.entries(layer.servers)) {
			if (layer.project && !trustedProject) {
				ignored.push({ item: `mcpServers.${name}`, source: layer.source, why: `a project's MCP servers start only in a trusted workspace: the project ${workspace} is not in trusted_projects of the user config` });
				continue;
			}
			if (entry.disabled) {
				byName.delete(name);
				continue;
			}
			byName.delete(name);
			byName.set(name, serverConfig(name, entry, layer, workspace, hostEnv));
		}
	}
	return [...byName.values()];
}

/** The layers' `mcpServers` blocks, lowest first: the user's and project's config files, then `.mcp.json`. */
export function mcpLayers(files: readonly ConfigLayer[], mcpJson: McpServerLayer | undefined): McpServerLayer[] {
	const layers: McpServerLayer[] = files.filter((l) => l.data.mcpServers !== undefined).map((l) => ({ source: l.source, project: l.name === "project", servers: l.data.mcpServers! }));
	if (mcpJson) layers.push(mcpJson);
	return layers;
}
