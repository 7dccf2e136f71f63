/**
 * What the sandbox refused a command, read from its stderr: the messages the kernel's refusals
 * produce. Under bubblewrap a write outside the workspace is EROFS (the root is a read-only
 * mount); under Landlock it is EACCES ("Permission denied") and a socket it may not make is
 * ENETUNREACH; an empty network namespace gives no route or no resolver.
 */
import type { SandboxProviderName } from "./sandbox-profile.js";

/** What each refusal is called in the evidence and in the line the model sees. */
/** The read-only root and the read-only binds of protected paths inside the workspace answer alike (EROFS). */
export const DENIED_WRITE = "write outside the workspace or to a protected path";
export const DENIED_NETWORK = "network";
/**
 * Landlock's write refusal covers one more case than bubblewrap's, and the model needs to hear it to
 * adapt: no new name can be made directly in a directory that holds protected paths.
 */
export const DENIED_WRITE_LANDLOCK =
	"write outside the workspace, to a protected path, or of a new name directly in the workspace's top or in .git (Landlock allows no new name beside protected paths: write in a subdirectory)";

const NETWORK_ERRORS = /Could not resolve host|Network is unreachable|Temporary failure in name resolution|getaddrinfo E(?:AI_AGAIN|NOTFOUND)|ENETUNREACH|EAI_AGAIN/i;
/** `bash: /x/y: Permission denied`, `touch: cannot touch '/x/y': Permission denied`. */
const PERMISSION_DENIED = /(?:['‘"]([^'’"\n]+)['’"]|(?<=^|\s)(\/[^\s:'"]+)):\s*Permission denied/gm;

/** What each provider's refusals look like beyond the shared ones: one row per provider. */
const PROVIDER_SIGNS: Record<SandboxProviderName, { write: RegExp; denied: string; network?: RegExp }> = {
	bwrap: { write: /Read-only file system/i, denied: DENIED_WRITE },
	landlock: {
		denied: DENIED_WRITE_LANDLOCK,
		// A shell redirection or a file utility refused a write: Landlock answers EACCES where bubblewrap's mount says EROFS.
		write: /Read-only file system|^(?:\S+: )?(?:line \d+: )?[^:\n]+: Permission denied$|cannot (?:touch|create|remove|make directory|move|overwrite|open [^\n]* for writing|create regular file|create directory)[^\n]*Permission denied|Read-only|EACCES: permission denied, (?:open|mkdir|unlink|rename|rmdir)/im,
		// curl's words for a socket it could not make; a refused port reads the same, so it counts only where the network was withheld.
		network: /Couldn't connect to server/i,
	},
};

export interface DenialContext {
	provider?: SandboxProviderName | undefined;
	/** Whether the command had the network: a provider's looser network signs count only without it. */
	network?: boolean | undefined;
}

export function sandboxDenials(stderr: string, context: DenialContext = {}): string[] {
	const out = new Set<string>();
	const signs = PROVIDER_SIGNS[context.provider ?? "bwrap"];
	if (signs.write.test(stderr)) out.add(signs.denied);
	for (const match of stderr.matchAll(PERMISSION_DENIED)) {
		const path = match[1] ?? match[2];
		if (path) out.add(path);
	}
	if (NETWORK_ERRORS.test(stderr) || (context.network === false && signs.network?.test(stderr))) out.add(DENIED_NETWORK);
	return [...out];
}
