/** True when the URL's host is this machine, so a request to it never leaves it. */
export function isLoopbackUrl(url: string): boolean {
	let host: string;
	try {
		host = new URL(url).hostname.toLowerCase();
	} catch {
		return false;
	}
	if (host === "localhost" || host.endsWith(".localhost")) return true;
	if (host === "[::1]" || host === "::1") return true;
	return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Reads OLLAMA_HOST the way Ollama itself does (`host`, `host:port` or a full URL; port 11434 when
 * no scheme is given) and points it at the OpenAI-compatible API under /v1.
 */
export function ollamaBaseUrl(ollamaHost: string | undefined): string {
	const raw = (ollamaHost ?? "").trim();
	if (raw === "") return "http://127.0.0.1:11434/v1";
	const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw);
	const url = new URL(hasScheme ? raw : `http://${raw}`);
	if (!hasScheme && url.port === "") url.port = "11434";
	const path = url.pathname.replace(/\/+$/, "");
	url.pathname = path.endsWith("/v1") ? path : `${path}/v1`;
	return url.toString().replace(/\/+$/, "");
}
