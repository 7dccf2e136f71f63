/**
 * The model Warden offers when none is configured: Qwen2.5 1.5B Instruct, Q4_K_M GGUF.
 *
 * Why this one: it is the smallest instruct model trained for tool calling that follows a
 * multi-step tool loop well enough to be useful (its chat template carries the tools and
 * `<tool_call>` replies), Apache-2.0 (the 3B sibling is under a research-only licence), 1.07 GiB
 * to download and about 2 GB of memory to run on a CPU, with a 32K context. The file is pinned to
 * a commit of the official Qwen repository, and its sha256 with it.
 */
export interface DefaultModel {
	/** As an hf reference: <owner>/<repo>/<file>. */
	reference: string;
	revision: string;
	sha256: string;
	bytes: number;
	title: string;
	licence: string;
}

export const DEFAULT_MODEL: DefaultModel = {
	reference: "Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf",
	revision: "91cad51170dc346986eccefdc2dd33a9da36ead9",
	sha256: "6a1a2eb6d15622bf3c96857206351ba97e1af16c30d7a74ee38970e434e9407e",
	bytes: 1_117_320_736,
	title: "Qwen2.5 1.5B Instruct (Q4_K_M GGUF)",
	licence: "Apache-2.0",
};
