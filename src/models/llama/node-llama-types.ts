/**
 * The part of node-llama-cpp 3.21's API that Warden uses, typed here because the package lives in
 * its own runtime directory, outside node_modules, where the compiler cannot see it.
 */

export type Token = number & { readonly __token?: never };

export type ChatHistoryItem = { type: "system"; text: string } | { type: "user"; text: string } | { type: "model"; response: string[] };

export interface Grammar {
	readonly grammar: string;
}

export interface TokenMeterState {
	usedInputTokens: number;
	usedOutputTokens: number;
}

export interface ContextSequence {
	readonly contextSize: number;
	readonly tokenMeter: { getState(): TokenMeterState };
	dispose(): Promise<void>;
}

export interface Context {
	readonly contextSize: number;
	getSequence(): ContextSequence;
	dispose(): Promise<void>;
}

export interface Model {
	readonly trainContextSize: number;
	readonly fileInfo: { metadata: Record<string, unknown> };
	readonly tokenizer: unknown;
	tokenize(text: string, specialTokens?: boolean): Token[];
	createContext(options: { contextSize?: number | { min?: number; max?: number }; threads?: number; sequences?: number }): Promise<Context>;
	dispose(): Promise<void>;
}

export interface Llama {
	loadModel(options: { modelPath: string; gpuLayers?: number | "auto" }): Promise<Model>;
	createGrammarForJsonSchema(schema: Record<string, unknown>): Promise<Grammar>;
}

export interface ChatWrapper {
	readonly wrapperName: string;
	generateContextState(options: { chatHistory: ChatHistoryItem[] }): { contextText: { tokenize(tokenizer: unknown): Token[] } };
}

export interface ChatResponse {
	response: string;
	metadata: { stopReason: "eogToken" | "stopGenerationTrigger" | "functionCalls" | "maxTokens" | "abort" | "customStopTrigger" };
}

export interface GenerateOptions {
	grammar?: Grammar;
	maxTokens?: number;
	temperature?: number;
	signal?: AbortSignal;
	onTextChunk?: (text: string) => void;
	onToken?: (tokens: Token[]) => void;
}

export interface LlamaChat {
	readonly chatWrapper: ChatWrapper;
	generateResponse(history: ChatHistoryItem[], options: GenerateOptions): Promise<ChatResponse>;
	dispose(): Promise<void>;
}

/** The module itself, as `import()` returns it. */
export interface NodeLlamaCpp {
	getLlama(options: { gpu: false; build: "never"; skipDownload: true; maxThreads: number; logLevel?: "error" | "warn" | "disabled"; progressLogs?: boolean }): Promise<Llama>;
	LlamaChat: new (options: { contextSequence: ContextSequence; autoDisposeSequence?: boolean }) => LlamaChat;
}
