/**
 * Turning what a command line says about a destination — a URL, `user@host:path`, `host port` —
 * into canonical sinks. Anything Warden cannot name exactly is left to the caller, who then adds
 * "net:unknown": a half-read destination must never look like a known one.
 */
import { netResource } from "../authority/resource.js";

/** A network-capable command whose destination Warden cannot read. */
export const UNKNOWN_SINK = "net:unknown";
/** A name handed to the resolver: the name itself is the payload (DNS exfiltration). */
export const DNS_SINK = "net:dns";

/** Ports netResource leaves implicit for special schemes, and the usual ports of other clients' schemes. */
const SCHEME_PORTS: Record<string, string> = {
	"ftp:": "21",
	"ftps:": "990",
	"sftp:": "22",
	"scp:": "22",
	"ssh:": "22",
	"git:": "9418",
	"rsync:": "873",
	"telnet:": "23",
	"tftp:": "69",
	"dict:": "2628",
	"gopher:": "70",
	"ldap:": "389",
	"ldaps:": "636",
	"smtp:": "25",
	"smtps:": "465",
	"imap:": "143",
	"imaps:": "993",
	"pop3:": "110",
	"pop3s:": "995",
	"mqtt:": "1883",
	"rtsp:": "554",
	"smb:": "445",
	"smbs:": "445",
};

/** `scheme://rest` up to a character no shell word of a URL would carry unquoted. */
const URL_IN_TEXT = /\b([A-Za-z][A-Za-z0-9+.-]*):\/\/[^\s'"`<>(){}\\|;]+/g;
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?)$/;
/** Characters that mean part of the text is only known at run time. */
const RUN_TIME = /[$`]/;

/** The sink of one URL, or undefined when its host or port cannot be named (the caller adds net:unknown). */
export function urlSink(text: string): string | undefined {
	if (RUN_TIME.test(text)) return undefined;
	try {
		return netResource(text);
	} catch {
		// netResource names only the schemes whose port it knows; a client's own scheme gets its usual port.
	}
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		return undefined;
	}
	const port = url.port || SCHEME_PORTS[url.protocol];
	if (port === undefined || url.hostname === "" || !HOST.test(url.hostname)) return undefined;
	return `net:${url.protocol}//${url.hostname.toLowerCase()}:${port}`;
}

/** Every `scheme://…` in a text, local `file:` URLs left out. */
export function urlsIn(text: string): string[] {
	return [...text.matchAll(URL_IN_TEXT)].map((m) => m[0]).filter((u) => !/^file:/i.test(u));
}

/** Local paths named by `file://` URLs (curl reads them). */
export function fileUrlPaths(text: string): string[] {
	const out: string[] = [];
	for (const m of text.matchAll(URL_IN_TEXT)) {
		if (!/^file:/i.test(m[0])) continue;
		try {
			const path = decodeURIComponent(new URL(m[0]).pathname);
			if (path !== "" && path !== "/") out.push(path);
		} catch {
			// A malformed file URL names nothing Warden can label; curl would refuse it too.
		}
	}
	return out;
}

export function isUrl(word: string): boolean {
	return /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(word);
}

/** `<scheme>://host:port` for a bare host and port (`nc host 9`), or undefined when either is not static and plain. */
export function hostPortSink(scheme: string, host: string, port: string): string | undefined {
	if (!HOST.test(host) || !/^\d{1,5}$/.test(port) || Number(port) > 65535) return undefined;
	return `net:${scheme}://${host.toLowerCase()}:${Number(port)}`;
}

/** `[user@]host:path` (scp, rsync, git) → its host; rsync's `host::module` is flagged. `./a:b` and `/x:y` are local. */
export function remoteSpec(word: string): { host: string; daemon: boolean } | undefined {
	if (isUrl(word)) return undefined;
	const m = /^(?:[^@/\s]+@)?(\[[0-9A-Fa-f:.]+\]|[^:/\s@[\]]+):(:?)/.exec(word);
	if (!m || !HOST.test(m[1]!)) return undefined;
	return { host: m[1]!, daemon: m[2] === ":" };
}

/** An ssh destination (`[user@]host`, `ssh://[user@]host[:port]`) as `net:ssh://host:port`, or undefined when it is not plain. */
export function sshSink(word: string, port: string): string | undefined {
	if (isUrl(word)) {
		const sink = urlSink(word);
		return sink?.startsWith("net:ssh://") ? sink : undefined;
	}
	return hostPortSink("ssh", word.slice(word.lastIndexOf("@") + 1), port);
}
