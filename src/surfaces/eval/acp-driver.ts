/**
 * An ACP task's turn: `warden acp`'s agent (the same one the CLI serves) connected in-process to
 * the ACP SDK's own client, which opens a session in the task's workspace, sends the prompt,
 * answers every permission request as the task says and cancels when it says. What the run did is
 * then read from the store like any full run's.
 */
import { client, PROTOCOL_VERSION, type RequestPermissionResponse } from "@agentclientprotocol/sdk";
import type { ModelProvider } from "../../models/provider.js";
import type { Runtime } from "../../runtime/runtime.js";
import { buildAcpAgent } from "../acp/acp-agent.js";
import type { BaseOptions } from "../acp/acp-session.js";
import { streamingModel } from "../acp/streaming-model.js";
import { ClientTerminals } from "./acp-client-terminals.js";
import type { AcpTaskSpec } from "./task-types.js";

export interface AcpTaskHooks {
	/** A tool call was asked about. */
	asked(): void;
	/** An exact release was asked for: true releases it. */
	release(): boolean;
}

/** Runs one prompt through the ACP agent; resolves with the session's id once its run has ended. */
export async function runAcpTurn(runtime: Runtime, workspace: string, model: ModelProvider, base: BaseOptions, input: string, spec: AcpTaskSpec, hooks: AcpTaskHooks): Promise<string> {
	const agent = buildAcpAgent(runtime, async () => ({ base, model: streamingModel(model) }));
	let sessionId = "";
	const terminals = spec.terminals ? new ClientTerminals() : undefined;
	const app = client({ name: "warden-eval" })
		.onNotification("session/update", ({ params, agent: peer }) => {
			const update = params.update;
			if (spec.cancelAt !== undefined && update.sessionUpdate === "tool_call_update" && update.toolCallId === spec.cancelAt && update.status === "in_progress") {
				void peer.notify("session/cancel", { sessionId: params.sessionId });
			}
		})
		.onRequest("session/request_permission", ({ params, signal, agent: peer }): Promise<RequestPermissionResponse> | RequestPermissionResponse => {
			// An exact release offers only the one-shot answers.
			if (!params.options.some((o) => o.kind === "allow_always")) return { outcome: { outcome: "selected", optionId: hooks.release() ? "allow_once" : "reject_once" } };
			hooks.asked();
			if (spec.answer !== "cancelled") return { outcome: { outcome: "selected", optionId: spec.answer } };
			// The user cancels the turn while asked: the agent withdraws the request, which is then answered cancelled.
			return new Promise((resolve) => {
				signal.addEventListener("abort", () => resolve({ outcome: { outcome: "cancelled" } }), { once: true });
				void peer.notify("session/cancel", { sessionId: params.sessionId });
			});
		});
	const connection = (terminals ? terminals.serve(app) : app).connect(agent.app);
	try {
		await connection.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: terminals ? { terminal: true } : {} });
		sessionId = (await connection.agent.request("session/new", { cwd: workspace, mcpServers: [] })).sessionId;
		// A turn that ends in error answers with an error; its evidence is read from the store all the same.
		await connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: input }] }).catch(() => undefined);
	} finally {
		await agent.endAll();
		terminals?.killAll();
		connection.close();
	}
	return sessionId;
}
