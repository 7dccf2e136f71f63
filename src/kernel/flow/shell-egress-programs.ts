/**
 * What each network client sends where: its destinations, read the way the client reads its own
 * arguments, and the local files it reads or writes (`curl -d @.env`, `wget --post-file`, `scp .env h:`).
 * A destination that cannot be read exactly is reported as unknown, never guessed.
 */
import type { ShellWord, SimpleCommand } from "../admission/shell/shell-types.js";
import { hasOption, type ScannedArgs, scanArgs, valuesOf, wordText } from "./shell-egress-args.js";
import { DNS_SINK, fileUrlPaths, hostPortSink, isUrl, remoteSpec, sshSink, urlSink, urlsIn } from "./shell-egress-sinks.js";

/** One sub-command as egress: whether it may reach the network, where, and which files it names. */
export interface ProgramEgress {
	network: boolean;
	sinks: string[];
	/** Some destination could not be read: the caller adds net:unknown. */
	unknown: boolean;
	/** Files as written, read or written by the program's own options and operands. */
	files: string[];
	/** Its operands may be local files it sends (`aws s3 cp .env s3://b`, `npm publish ./pkg`). */
	operandFiles?: boolean;
}

export type ProgramAnalyzer = (c: SimpleCommand) => ProgramEgress | undefined;

class Found implements ProgramEgress {
	network = true;
	sinks: string[] = [];
	unknown = false;
	files: string[] = [];

	sink(sink: string | undefined): void {
		if (sink === undefined) this.unknown = true;
		else this.sinks.push(sink);
	}

	url(text: string): void {
		for (const path of fileUrlPaths(text)) this.files.push(path);
		if (/^file:/i.test(text)) return;
		this.sink(urlSink(text));
	}

	file(word: ShellWord | undefined): void {
		if (!word) return;
		if (!word.static) return;
		if (word.value !== "" && word.value !== "-") this.files.push(word.value);
	}

	path(text: string): void {
		if (text !== "" && text !== "-") this.files.push(text);
	}
}

const set = (...names: string[]): ReadonlySet<string> => new Set(names);

/** An operand a URL client takes as a URL: with a scheme, or a bare `host[:port][/path]` it completes with its default scheme. */
function clientUrl(found: Found, word: ShellWord, defaultScheme: string): void {
	if (!word.static) {
		found.unknown = true;
		return;
	}
	const v = word.value;
	if (isUrl(v)) found.url(v);
	else if (v.startsWith(":")) found.url(`${defaultScheme}://localhost${v}`);
	else found.url(`${defaultScheme}://${v}`);
}

// curl -----------------------------------------------------------------------------------------

const CURL_VALUES = set(
	...["-d", "--data", "--data-binary", "--data-ascii", "--data-raw", "--data-urlencode", "--json", "-F", "--form", "--form-string"],
	...["-H", "--header", "-T", "--upload-file", "-K", "--config", "-o", "--output", "--output-dir", "-D", "--dump-header"],
	...["-c", "--cookie-jar", "-b", "--cookie", "-E", "--cert", "--key", "--cacert", "--capath", "-u", "--user", "-A", "--user-agent"],
	...["-e", "--referer", "-X", "--request", "-x", "--proxy", "--preproxy", "-U", "--proxy-user", "-m", "--max-time", "--connect-timeout"],
	...["-w", "--write-out", "-r", "--range", "-C", "--continue-at", "--retry", "--retry-delay", "--retry-max-time", "--resolve"],
	...["--connect-to", "--url", "--url-query", "-Y", "--speed-limit", "-y", "--speed-time", "--limit-rate", "--max-filesize", "-z"],
	...["--time-cond", "--stderr", "--trace", "--trace-ascii", "--netrc-file", "--unix-socket", "--abstract-unix-socket", "--interface"],
	...["--local-port", "--cert-type", "--key-type", "--pass", "--ciphers", "--proto", "--proto-redir", "--max-redirs", "--dns-servers"],
	...["--doh-url", "--oauth2-bearer", "--aws-sigv4", "-Q", "--quote", "--mail-from", "--mail-rcpt", "--variable", "-P", "--ftp-port"],
	...["--hsts", "--alt-svc", "--etag-save", "--etag-compare", "--expect100-timeout", "--happy-eyeballs-timeout-ms"],
);
/** Values that read a file when they start with `@` (or, for `--data-urlencode` and `--variable`, hold `name@file`). */
const CURL_AT_FILE = set("-d", "--data", "--data-binary", "--data-ascii", "--data-urlencode", "--json", "-H", "--header", "--variable", "--url-query");
const CURL_FORM = set("-F", "--form");
const CURL_FILES = set(
	...["-T", "--upload-file", "-K", "--config", "-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "-E", "--cert", "--key"],
	...["--cacert", "--stderr", "--trace", "--trace-ascii", "--netrc-file", "--hsts", "--alt-svc", "--etag-save", "--etag-compare"],
);
/** Options that send the request somewhere other than the URL says, or take URLs from a file. */
const CURL_REROUTE = set("-K", "--config", "--resolve", "--connect-to", "--unix-socket", "--abstract-unix-socket", "--doh-url", "--dns-servers");

/** `@file`, `name@file` (when no `=` comes first), `name=@file;type=…`, `name=<file`. */
function curlDataFile(value: string, form: boolean): string | undefined {
	if (form) {
		const m = /^[^=]*=[@<]([^;]*)/.exec(value);
		return m ? m[1] : undefined;
	}
	const at = value.indexOf("@");
	if (at === -1) return undefined;
	const eq = value.indexOf("=");
	return eq !== -1 && eq < at ? undefined : value.slice(at + 1);
}

function curl(c: SimpleCommand): ProgramEgress {
	const found = new Found();
	const scanned = scanArgs(c.args, CURL_VALUES);
	for (const o of scanned.options) {
		if (!o.value?.static) continue;
		const v = o.value.value;
		if (CURL_AT_FILE.has(o.name) || CURL_FORM.has(o.name)) {
			const file = curlDataFile(v, CURL_FORM.has(o.name));
			if (file !== undefined) found.path(file);
		}
		if (CURL_FILES.has(o.name)) found.path(o.name === "-E" || o.name === "--cert" ? v.replace(/:[^/]*$/, "") : v);
		if ((o.name === "-b" || o.name === "--cookie") && !v.includes("=")) found.path(v);
		if (o.name === "-x" || o.name === "--proxy" || o.name === "--preproxy") clientUrl(found, o.value, "http");
	}
	if (hasOption(scanned, CURL_REROUTE)) found.unknown = true;
	for (const o of scanned.options) if (o.name === "--url" && o.value) clientUrl(found, o.value, "http");
	for (const w of scanned.operands) clientUrl(found, w, "http");
	return found;
}

// wget -----------------------------------------------------------------------------------------

const WGET_VALUES = set(
	...["-O", "--output-document", "-o", "--output-file", "-a", "--append-output", "-i", "--input-file", "-P", "--directory-prefix"],
	...["--post-data", "--post-file", "--body-data", "--body-file", "--method", "--header", "-U", "--user-agent", "--user", "--password"],
	...["--http-user", "--http-password", "--load-cookies", "--save-cookies", "--certificate", "--private-key", "--ca-certificate"],
	...["-e", "--execute", "-t", "--tries", "-T", "--timeout", "-w", "--wait", "--referer", "-B", "--base", "-Q", "--quota", "-l", "--level"],
	...["-A", "--accept", "-R", "--reject", "-D", "--domains", "--bind-address", "--limit-rate", "--proxy-user", "--proxy-password", "--config"],
);
const WGET_FILES = set(
	...["-O", "--output-document", "-o", "--output-file", "-a", "--append-output", "-i", "--input-file", "--post-file", "--body-file"],
	...["--load-cookies", "--save-cookies", "--certificate", "--private-key", "--ca-certificate", "--config"],
);
const WGET_REROUTE = set("-i", "--input-file", "-e", "--execute", "-B", "--base", "--config");

function wget(c: SimpleCommand): ProgramEgress {
	const found = new Found();
	const scanned = scanArgs(c.args, WGET_VALUES);
	for (const file of valuesOf(scanned, WGET_FILES)) found.file(file);
	if (hasOption(scanned, WGET_REROUTE)) found.unknown = true;
	for (const w of scanned.operands) clientUrl(found, w, "http");
	return found;
}

// httpie / xh ----------------------------------------------------------------------------------

const HTTPIE_VALUES = set(
	...["-a", "--auth", "-A", "--auth-type", "-o", "--output", "--session", "--session-read-only", "--verify", "--cert", "--cert-key"],
	...["--cert-key-pass", "--proxy", "--timeout", "--max-redirects", "-p", "--print", "--pretty", "-s", "--style", "--format-options"],
	...["--default-scheme", "--ssl", "--ciphers", "--boundary", "--response-charset", "--response-mime", "--unix-socket"],
);
const HTTPIE_FILES = set("-o", "--output", "--cert", "--cert-key");
/** An item's separator: the first one in the word, the longest spelling at that place. */
const HTTPIE_ITEM = /^((?:\\.|[^\\=:@])*)(:=@|=@|@|:=|==|=|:)([\s\S]*)$/;

function httpie(c: SimpleCommand): ProgramEgress {
	const found = new Found();
	const scanned = scanArgs(c.args, HTTPIE_VALUES);
	for (const file of valuesOf(scanned, HTTPIE_FILES)) found.file(file);
	if (hasOption(scanned, set("--unix-socket"))) found.unknown = true;
	const schemeOption = valuesOf(scanned, set("--default-scheme"))[0];
	const scheme = schemeOption?.static
		? schemeOption.value
		: c.program === "https" || c.program === "xhs" || hasOption(scanned, set("--https"))
			? "https"
			: "http";
	const operands = [...scanned.operands];
	if (operands.length > 1 && operands[0]!.static && /^[A-Z]+$/.test(operands[0]!.value)) operands.shift();
	const [target, ...items] = operands;
	if (target) clientUrl(found, target, scheme);
	else found.unknown = true;
	for (const item of items) {
		const m = item.static ? HTTPIE_ITEM.exec(item.value) : null;
		if (!m) continue;
		const separator = m[2]!;
		if (separator === "@") found.path(m[3]!.replace(/;type=.*$/, ""));
		else if (separator === "=@" || separator === ":=@") found.path(m[3]!);
	}
	return found;
}

// raw sockets ----------------------------------------------------------------------------------

const NC_VALUES = set(
	...["-p", "-s", "-w", "-i", "-q", "-x", "-X", "-e", "-c", "-o", "-O", "-P", "-I", "-T", "-V", "-W", "-m", "-g", "-G", "-d"],
	...["--proxy", "--proxy-type", "--proxy-auth", "--exec", "--sh-exec", "--lua-exec", "--output", "--hex-dump", "--source-port"],
	...["--source", "--wait", "--idle-timeout", "--delay", "--max-conns", "--allow", "--allowfile", "--deny", "--denyfile"],
);
/** Listening, proxying or unix sockets: the peer is not named by the operands. */
const NC_ELSEWHERE = set("-l", "--listen", "-U", "--unixsock", "-x", "-X", "--proxy", "--broker");

function netcat(c: SimpleCommand): ProgramEgress {
	const found = new Found();
	const scanned = scanArgs(c.args, NC_VALUES);
	for (const file of valuesOf(scanned, set("-o", "-O", "--output", "--hex-dump"))) found.file(file);
	if (hasOption(scanned, NC_ELSEWHERE)) found.unknown = true;
	const scheme = hasOption(scanned, set("-u", "--udp")) ? "udp" : "tcp";
	const [host, ...ports] = scanned.operands;
	if (!host || ports.length === 0) found.unknown = true;
	for (const port of ports) found.sink(host?.static && port.static ? hostPortSink(scheme, host.value, port.value) : undefined);
	return found;
}

function telnet(c: SimpleCommand): ProgramEgress {
	const found = new Found();
	const scanned = scanArgs(c.args, set("-l", "-n", "-e", "-b", "-S", "-X", "-k"));
	const [host, port] = scanned.operands;
	if (!host) found.unknown = true;
	else found.sink(host.static && (port?.static ?? true) ? hostPortSink("tcp", host.value, port?.value ?? "23") : undefined);
	return found;
}

const SOCAT_TCP = /^(tcp[46]?|tcp[46]?-connect)$/i;
const SOCAT_UDP = /^(udp[46]?|udp[46]?-connect|udp[46]?-sendto|udp[46]?-datagram)$/i;
const SOCAT_TLS = /^(openssl|ssl|openssl-connect)$/i;
const SOCAT_FILES = /^(open|gopen|create|file|pipe)$/i;
const SOCAT_LOCAL = /^(-|stdio|stdin|stdout|stderr|system|exec|readline|pty|fd|pipe)$/i;

function socat(c: SimpleCommand): ProgramEgress {
	const found = new Found();
	found.network = false;
	// socat's own options are single-dash words (`-lf file`, `-d -d`); its two addresses are the rest.
	const words = c.args.filter((w, i) => !(w.static && w.value.startsWith("-") && w.value !== "-") && !(i > 0 && ["-lf", "-b", "-t", "-T"].includes(c.args[i - 1]!.value)));
	for (const word of words) {
		if (!word.static) {
			found.network = true;
			found.unknown = true;
			continue;
		}
		const address = word.value.split(",")[0]!;
		const colon = address.indexOf(":");
		const type = colon === -1 ? address : address.slice(0, colon);
		const rest = colon === -1 ? "" : address.slice(colon + 1);
		if (colon === -1 && type.includes("/")) {
			found.path(type);
			continue;
		}
		const scheme = SOCAT_TCP.test(type) ? "tcp" : SOCAT_UDP.test(type) ? "udp" : SOCAT_TLS.test(type) ? "tls" : undefined;
		if (scheme) {
			found.network = true;
			const split = rest.lastIndexOf(":");
			found.sink(split === -1 ? undefined : hostPortSink(scheme, rest.slice(0, split), rest.slice(split + 1)));
		} else if (SOCAT_FILES.test(type)) {
			found.path(rest);
		} else if (!SOCAT_LOCAL.test(type)) {
			// Listeners, proxies, SOCKS, tunnels and address types Warden does not know.
			found.network = true;
			found.unknown = true;
		}
	}
	return found;
}

// ssh family -----------------------------------------------------------------------------------

const SSH_VALUES = set("-B", "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-p", "-Q", "-R", "-S", "-W", "-w");
const SCP_VALUES = set("-c", "-D", "-F", "-i", "-J", "-l", "-o", "-P", "-S", "-X");
const SFTP_VALUES = set("-B", "-b", "-c", "-D", "-F", "-i", "-J", "-l", "-o", "-P", "-R", "-S", "-s", "-X");
/** Options that route the connection through something the words do not name (config, proxy command, tunnels). */
const SSH_ELSEWHERE = set("-F", "-S", "-L", "-R", "-D", "-W", "-w");

/** `-J a,b@c:2222`: every jump host is a sink too, since the stream passes through it. */
function jumpHosts(found: Found, scanned: ScannedArgs): void {
	for (const jump of valuesOf(scanned, set("-J"))) {
		if (!jump.static) {
			found.unknown = true;
			continue;
		}
		for (const hop of jump.value.split(",")) {
			const m = /^(.*?)(?::(\d+))?$/.exec(hop)!;
			found.sink(sshSink(m[1]!, m[2] ?? "22"));
		}
	}
}

/** `-o ProxyCommand=…`, `-o HostName=…` and friends change where the connection goes. */
function sshOptionsReroute(scanned: ScannedArgs): boolean {
	return valuesOf(scanned, set("-o")).some((o) => !o.static || /^\s*(proxy|hostname|localforward|remoteforward|dynamicforward|tunnel)/i.test(o.value));
}

function ssh(c: SimpleCommand): ProgramEgress {
	const found = new Found();
	const scanned = scanArgs(c.args, SSH_VALUES);
	for (const log of valuesOf(scanned, set("-E"))) found.file(log);
	const port = valuesOf(scanned, set("-p"))[0];
	const destination = scanned.operands[0];
	if (!destination?.static || (port !== undefined && !port.static)) found.unknown = true;
	else found.sink(sshSink(destination.value, port?.value ?? "22"));
	jumpHosts(found, scanned);
	if (hasOption(scanned, SSH_ELSEWHERE) || sshOptionsReroute(scanned)) found.unknown = true;
	return found;
}

/** scp and sftp: remote operands are destinations, the others are local files sent or written. */
function copyOverSsh(values: ReadonlySet<string>, portOption: string): ProgramAnalyzer {
	return (c) => {
		const found = new Found();
		found.network = false;
		const scanned = scanArgs(c.args, values);
		const port = valuesOf(scanned, set(portOption))[0];
		for (const batch of valuesOf(scanned, set("-b"))) {
			found.file(batch);
			found.network = true;
			found.unknown = true;
		}
		for (const w of scanned.operands) {
			if (!w.static) {
				found.network = true;
				found.unknown = true;
				continue;
			}
			const remote = isUrl(w.value) ? undefined : remoteSpec(w.value);
			if (isUrl(w.value)) {
				found.network = true;
				found.url(w.value);
			} else if (remote) {
				found.network = true;
				found.sink(port?.static === false ? undefined : hostPortSink("ssh", remote.host, port?.value ?? "22"));
			} else if (c.program === "sftp") {
				found.network = true;
				found.sink(sshSink(w.value, port?.value ?? "22"));
			} else {
				found.path(w.value);
			}
		}
		if (found.network) {
			jumpHosts(found, scanned);
			if (hasOption(scanned, set("-F", "-S")) || sshOptionsReroute(scanned)) found.unknown = true;
		}
		return found;
	};
}

const RSYNC_VALUES = set(
	...["-e", "--rsh", "--rsync-path", "-f", "--filter", "--exclude", "--include", "--exclude-from", "--include-from", "--files-from"],
	...["--log-file", "--password-file", "--port", "-T", "--temp-dir", "--backup-dir", "--compare-dest", "--link-dest", "--copy-dest"],
	...["-B", "--block-size", "--bwlimit", "--timeout", "--contimeout", "--chmod", "--chown", "-M", "--remote-option", "--out-format"],
	...["--info", "--debug", "--partial-dir", "--suffix", "--max-size", "--min-size", "--sockopts", "--iconv", "--address"],
);

function rsync(c: SimpleCommand): ProgramEgress {
	const found = new Found();
	found.network = false;
	const scanned = scanArgs(c.args, RSYNC_VALUES);
	for (const file of valuesOf(scanned, set("--files-from", "--exclude-from", "--include-from", "--log-file"))) found.file(file);
	const rsh = valuesOf(scanned, set("-e", "--rsh"))[0];
	const sshPort = rsh?.static ? (/(?:^|\s)-p\s*(\d+)/.exec(rsh.value)?.[1] ?? "22") : undefined;
	const daemonPort = valuesOf(scanned, set("--port"))[0];
	for (const w of scanned.operands) {
		if (!w.static) {
			found.network = true;
			found.unknown = true;
			continue;
		}
		const remote = remoteSpec(w.value);
		if (isUrl(w.value)) {
			found.network = true;
			found.url(daemonPort?.static ? w.value.replace(/^(rsync:\/\/[^/:]+)(?=\/|$)/i, `$1:${daemonPort.value}`) : w.value);
		} else if (remote?.daemon) {
			found.network = true;
			found.sink(hostPortSink("rsync", remote.host, daemonPort?.static ? daemonPort.value : "873"));
		} else if (remote) {
			found.network = true;
			// A remote shell other than ssh (or one only known at run time) goes where Warden cannot tell.
			const viaSsh = rsh === undefined || (rsh.static && /^\S*ssh\b/.test(rsh.value));
			found.sink(viaSsh ? hostPortSink("ssh", remote.host, sshPort ?? "22") : undefined);
		} else {
			found.path(w.value);
		}
	}
	return found;
}

// other clients --------------------------------------------------------------------------------

function ftp(c: SimpleCommand): ProgramEgress {
	const found = new Found();
	const scanned = scanArgs(c.args, set("-P", "-o", "-s", "-T", "-r", "-q"));
	const [host, port] = scanned.operands;
	if (!host) found.unknown = true;
	else if (host.static && isUrl(host.value)) found.url(host.value);
	else found.sink(host.static && (port?.static ?? true) ? hostPortSink("ftp", host.value.slice(host.value.lastIndexOf("@") + 1), port?.value ?? "21") : undefined);
	// ftp takes commands (`open`, `put`) at its prompt or from its input: it may connect anywhere.
	found.unknown = true;
	return found;
}

const ARIA_VALUES = set(
	...["-i", "--input-file", "-d", "--dir", "-o", "--out", "-x", "-s", "-j", "-k", "-l", "--log", "--all-proxy", "--http-proxy"],
	...["--https-proxy", "-T", "--torrent-file", "-M", "--metalink-file", "--save-session", "--conf-path", "--header", "-U"],
);

function aria2c(c: SimpleCommand): ProgramEgress {
	const found = new Found();
	const scanned = scanArgs(c.args, ARIA_VALUES);
	for (const file of valuesOf(scanned, set("-i", "--input-file", "-o", "--out", "-T", "--torrent-file", "-M", "--metalink-file", "--conf-path", "-l", "--log"))) {
		found.file(file);
	}
	if (hasOption(scanned, set("-i", "--input-file", "-T", "--torrent-file", "-M", "--metalink-file", "--conf-path"))) found.unknown = true;
	for (const w of scanned.operands) {
		if (w.static && isUrl(w.value)) found.url(w.value);
		else found.unknown = true;
	}
	return found;
}

const GIT_GLOBAL_VALUES = set("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--list-cmds");
const GIT_NETWORK = set("push", "fetch", "pull", "clone", "ls-remote", "send-email", "svn", "request-pull");

function gitReachesNetwork(sub: string, rest: readonly ShellWord[]): boolean {
	const next = rest.find((w) => !w.static || !w.value.startsWith("-"))?.value;
	if (GIT_NETWORK.has(sub)) return true;
	if (sub === "remote") return next === "update" || next === "prune" || next === "show" || (next === "add" && rest.some((w) => w.value === "-f" || w.value === "--fetch"));
	if (sub === "submodule") return next === "update" || next === "add" || next === "foreach" || next === "sync";
	if (sub === "lfs") return next === "push" || next === "pull" || next === "fetch" || next === "clone";
	if (sub === "archive") return rest.some((w) => w.value.startsWith("--remote"));
	return false;
}

function git(c: SimpleCommand): ProgramEgress | undefined {
	const global = scanArgs(c.args, GIT_GLOBAL_VALUES);
	// The sub-command is the first word that is neither a global option nor its value.
	let index = 0;
	for (; index < c.args.length; index++) {
		const w = c.args[index]!;
		if (!w.static || !w.value.startsWith("-")) break;
		if (GIT_GLOBAL_VALUES.has(w.value)) index++;
	}
	const sub = c.args[index];
	if (!sub) return undefined;
	if (!sub.static) return { network: true, sinks: [], unknown: true, files: [] };
	const rest = c.args.slice(index + 1);
	if (!gitReachesNetwork(sub.value, rest)) return undefined;
	const found = new Found();
	for (const w of rest) {
		const remote = w.static ? remoteSpec(w.value) : undefined;
		if (remote) found.sink(hostPortSink("ssh", remote.host, "22"));
	}
	// Remote names (`origin`) and config (`-c url.x.insteadOf=…`) resolve in .git/config, which Warden does not read.
	if (hasOption(global, set("-c", "--config-env"))) found.unknown = true;
	return found;
}

const PACKAGE_NETWORK = set("publish", "install", "i", "add", "ci", "update", "up", "upgrade", "unpublish", "login", "adduser");

function packageManager(c: SimpleCommand): ProgramEgress | undefined {
	const sub = c.args.find((w) => !w.static || !w.value.startsWith("-"));
	// A bare `yarn` installs.
	if (sub === undefined ? c.program !== "yarn" : sub.static && !PACKAGE_NETWORK.has(sub.value)) return undefined;
	// The registry comes from .npmrc / the environment, which Warden does not read.
	return { network: true, sinks: [], unknown: true, files: [], operandFiles: true };
}

const PIP_VALUES = set("-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "-t", "--target", "--log");
const PIP_NETWORK = set("install", "download", "wheel", "upload", "search");

/** pip, or `python -m pip` (its words after `-m pip`). */
export function pipArgs(args: readonly ShellWord[]): ProgramEgress | undefined {
	const scanned = scanArgs(args, PIP_VALUES);
	const sub = scanned.operands[0];
	if (!sub || (sub.static && !PIP_NETWORK.has(sub.value))) return undefined;
	const found = new Found();
	for (const file of valuesOf(scanned, set("-r", "--requirement", "-c", "--constraint", "--log"))) found.file(file);
	found.unknown = true;
	return found;
}

function pip(c: SimpleCommand): ProgramEgress | undefined {
	if (c.program === "uv") return c.args[0]?.value === "pip" ? pipArgs(c.args.slice(1)) : undefined;
	return pipArgs(c.args);
}

function docker(c: SimpleCommand): ProgramEgress | undefined {
	const sub = scanArgs(c.args, set("-H", "--host", "--context", "-c", "--config", "-l", "--log-level")).operands[0];
	if (!sub || (sub.static && !["push", "pull", "login"].includes(sub.value))) return undefined;
	return { network: true, sinks: [], unknown: true, files: [] };
}

function openssl(c: SimpleCommand): ProgramEgress | undefined {
	if (c.args[0]?.value !== "s_client") return undefined;
	const found = new Found();
	const at = c.args.findIndex((w) => w.value === "-connect");
	const target = at === -1 ? undefined : c.args[at + 1];
	const split = target?.static ? target.value.lastIndexOf(":") : -1;
	// Without -connect, s_client dials localhost:4433.
	if (at === -1) found.sink(hostPortSink("tls", "localhost", "4433"));
	else found.sink(target?.static && split > 0 ? hostPortSink("tls", target.value.slice(0, split), target.value.slice(split + 1)) : undefined);
	if (c.args.some((w) => w.value === "-proxy" || w.value === "-unix")) found.unknown = true;
	return found;
}

/** Programs that resolve the names they are given: a name is a message to whoever serves that zone. */
function resolver(c: SimpleCommand): ProgramEgress | undefined {
	if (c.program === "getent" && !/^a?hosts/.test(c.args[0]?.value ?? "")) return undefined;
	const found = new Found();
	found.sinks.push(DNS_SINK);
	if (c.program === "dig") for (const batch of valuesOf(scanArgs(c.args, set("-f", "-b", "-k", "-p", "-q", "-t", "-c", "-x", "-y")), set("-f"))) found.file(batch);
	return found;
}

/** Cloud and hosting CLIs: they reach their provider's API, wherever the profile points. */
function providerCli(): ProgramEgress {
	return { network: true, sinks: [], unknown: true, files: [], operandFiles: true };
}

const ANALYZERS: Record<string, ProgramAnalyzer> = {
	curl,
	wget,
	http: httpie,
	https: httpie,
	xh: httpie,
	xhs: httpie,
	nc: netcat,
	ncat: netcat,
	netcat,
	socat,
	telnet,
	ftp,
	sftp: copyOverSsh(SFTP_VALUES, "-P"),
	scp: copyOverSsh(SCP_VALUES, "-P"),
	ssh,
	rsync,
	aria2c,
	git,
	npm: packageManager,
	pnpm: packageManager,
	yarn: packageManager,
	bun: packageManager,
	pip,
	pip3: pip,
	pipx: pip,
	uv: pip,
	docker,
	podman: docker,
	openssl,
	dig: resolver,
	nslookup: resolver,
	host: resolver,
	drill: resolver,
	delv: resolver,
	kdig: resolver,
	getent: resolver,
	ping: resolver,
	ping6: resolver,
	traceroute: resolver,
	traceroute6: resolver,
	tracepath: resolver,
	mtr: resolver,
	whois: providerCli,
	gh: providerCli,
	aws: providerCli,
	gcloud: providerCli,
	gsutil: providerCli,
	az: providerCli,
	kubectl: providerCli,
	rclone: providerCli,
	s3cmd: providerCli,
};

/** What a known program sends where; undefined when the program (or this use of it) does not reach the network. */
export function programEgress(c: SimpleCommand): ProgramEgress | undefined {
	return Object.hasOwn(ANALYZERS, c.program) ? ANALYZERS[c.program]!(c) : undefined;
}

/** Every URL in the command's words and environment (`https_proxy=…` is a destination too). */
export function wordUrls(c: SimpleCommand): string[] {
	return [...c.args.map(wordText), ...c.env.map((e) => e.value)].flatMap(urlsIn);
}
