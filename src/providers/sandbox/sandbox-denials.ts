/**
 * What the sandbox refused a command, read from its stderr: the messages the kernel's refusals
 * produce (EROFS, EACCES, no route or no resolver in an empty network namespace).
 */

/** What each refusal is called in the evidence and in the line the model sees. */
export const DENIED_WRITE = "write outside the workspace";
export const DENIED_NETWORK = "network";

const NETWORK_ERRORS = /Could not resolve host|Network is unreachable|Temporary failure in name resolution|getaddrinfo E(?:AI_AGAIN|NOTFOUND)|ENETUNREACH|EAI_AGAIN/i;
/** `bash: /x/y: Permission denied`, `touch: cannot touch '/x/y': Permission denied`. */
const PERMISSION_DENIED = /(?:['‘"]([^'’"\n]+)['’"]|(\/[^\s:'"]+)):\s*Permission denied/g;

export function sandboxDenials(stderr: string): string[] {
	const out = new Set<string>();
	if (/Read-only file system/i.test(stderr)) out.add(DENIED_WRITE);
	for (const match of stderr.matchAll(PERMISSION_DENIED)) {
		const path = match[1] ?? match[2];
		if (path) out.add(path);
	}
	if (NETWORK_ERRORS.test(stderr)) out.add(DENIED_NETWORK);
	return [...out];
}
