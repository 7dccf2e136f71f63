/**
 * The human primitive, `human.ask`: putting a pending request in front of a person on a channel
 * (`host` for the host's confirm callback). It is admitted as `egress` on `human:<channel>`: what
 * leaves is the call's exact arguments and, for writes, the diff — content flowing out of the
 * session to whoever answers. The answer coming back is not authority: the caller turns an
 * approval into a one-use lease, never into a grant.
 */
import type { CallAuthority } from "./authority/authority.js";
import { humanResource } from "./authority/resource.js";

/** The host's answering function, as the runtime holds it. */
export type HumanChannel<Q, A> = (request: Q, signal: AbortSignal) => A | Promise<A>;

export interface HumanPrimitives<Q, A> {
	readonly resource: string;
	/** Throws CapabilityDeniedError before the person sees anything; otherwise their answer. */
	ask(request: Q, signal: AbortSignal): Promise<A>;
}

export function createHumanPrimitives<Q, A>(opts: { channel: string; answer: HumanChannel<Q, A>; authority: CallAuthority }): HumanPrimitives<Q, A> {
	const resource = humanResource(opts.channel);
	return {
		resource,
		async ask(request, signal) {
			opts.authority.admit([{ resource, right: "egress" }]);
			return await opts.answer(request, signal);
		},
	};
}
