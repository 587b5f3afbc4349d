// The @a2a-js/sdk 1.3.0 server our client is tested against (tests/client_against_sdk_servers.rs).
//
// Built only from the SDK: its DefaultRequestHandler with the in-memory task and push config
// stores, its Express JSON-RPC handler (1.0, with its 0.3 compatibility on the same URL) and
// its HTTP+JSON handler under /rest. The card lists the three interfaces, push notifications
// and an extended card. The agent answers like tests/interop/python/sdk_server.py:
//
// - "slow N": working, then N artifact chunks "part-1".."part-N" of one artifact, one every
//   200 ms, then completed with "done after N parts";
// - anything else: an artifact with the text "echo: TEXT" and a data part {"echo": TEXT,
//   "first": true}, then input-required asking "what next?"; the task's second user message
//   completes it with "done: FIRST / SECOND".
//
// Usage: node sdk_server.mjs PORT [URL]: serves on 127.0.0.1:PORT, with URL (default its own) as
// the card's interfaces' base (a proxy's). Prints `listening on URL` once it accepts connections.

import { randomUUID } from 'node:crypto';
import express from 'express';
import { Role, TaskState } from '@a2a-js/sdk';
import {
    AgentEvent,
    DefaultRequestHandler,
    InMemoryPushNotificationStore,
    InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import {
    UserBuilder,
    agentCardHandler,
    jsonRpcHandler,
    restHandler,
} from '@a2a-js/sdk/server/express';

const PACE_MS = 200;
const port = Number(process.argv[2]);
const url = process.argv[3] ?? `http://127.0.0.1:${port}/`;

const text = (value) => ({ content: { $case: 'text', value } });
const data = (value) => ({ content: { $case: 'data', value } });
const textOf = (message) =>
    (message?.parts ?? [])
        .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
        .join('');
const agentMessage = (taskId, contextId, value) => ({
    messageId: randomUUID(),
    taskId,
    contextId,
    role: Role.ROLE_AGENT,
    parts: [text(value)],
});
const status = (taskId, contextId, state, message) =>
    AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state, message, timestamp: new Date().toISOString() },
    });
const artifact = (taskId, contextId, artifact, append, lastChunk) =>
    AgentEvent.artifactUpdate({ taskId, contextId, artifact, append, lastChunk });

/** Resolves after `ms`, or at once when `signal` was aborted (a cancel). */
const pause = (ms, signal) =>
    new Promise((resolve) => {
        const timer = setTimeout(resolve, ms);
        signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
        });
    });

class Agent {
    running = new Map();

    async execute(context, bus) {
        const { taskId, contextId, userMessage } = context;
        const input = textOf(userMessage);
        const task = context.task ?? {
            id: taskId,
            contextId,
            status: { state: TaskState.TASK_STATE_SUBMITTED },
            history: [userMessage],
            artifacts: [],
        };
        bus.publish(AgentEvent.task(task));
        bus.publish(status(taskId, contextId, TaskState.TASK_STATE_WORKING));
        if (input.startsWith('slow ')) {
            await this.slow(taskId, contextId, Number(input.split(' ')[1]), bus);
        } else if (context.task) {
            const earlier = (context.task.history ?? [])
                .filter((m) => m.role === Role.ROLE_USER && m.messageId !== userMessage.messageId)
                .map(textOf);
            const done = `done: ${[...earlier, input].join(' / ')}`;
            bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED,
                agentMessage(taskId, contextId, done)));
        } else {
            const answer = {
                artifactId: randomUUID(),
                name: 'answer',
                parts: [text(`echo: ${input}`), data({ echo: input, first: true })],
            };
            bus.publish(artifact(taskId, contextId, answer, false, true));
            bus.publish(status(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED,
                agentMessage(taskId, contextId, 'what next?')));
        }
        bus.finished();
    }

    async slow(taskId, contextId, parts, bus) {
        const cancelled = new AbortController();
        this.running.set(taskId, cancelled);
        for (let n = 1; n <= parts; n++) {
            await pause(PACE_MS, cancelled.signal);
            if (cancelled.signal.aborted) {
                bus.publish(status(taskId, contextId, TaskState.TASK_STATE_CANCELED));
                return;
            }
            const chunk = { artifactId: 'slow', parts: [text(`part-${n}`)] };
            bus.publish(artifact(taskId, contextId, chunk, n > 1, n === parts));
        }
        this.running.delete(taskId);
        bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED,
            agentMessage(taskId, contextId, `done after ${parts} parts`)));
    }

    async cancelTask(taskId, bus) {
        const running = this.running.get(taskId);
        this.running.delete(taskId);
        running?.abort();
    }
}

const card = (name) => ({
    name,
    description: '@a2a-js/sdk server for our client tests',
    version: '1.0.0',
    supportedInterfaces: [
        { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: `${url}rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [{ id: 'echo', name: 'echo', description: 'echoes', tags: ['echo'], examples: [],
        inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
});

const publicCard = card('js-sdk');
const handler = new DefaultRequestHandler(
    publicCard,
    new InMemoryTaskStore(),
    new Agent(),
    undefined,
    new InMemoryPushNotificationStore(),
    undefined,
    // Its default serves the extended card to authenticated callers only (the public one to
    // others); a provider function serves it to every caller, as the Python server does.
    async () => card('js-sdk (extended)'),
);
const userBuilder = UserBuilder.noAuthentication;
const app = express();
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
app.use('/rest', restHandler({ requestHandler: handler, userBuilder }));
app.use('/', jsonRpcHandler({ requestHandler: handler, userBuilder, legacyCompat: { enabled: true } }));
app.listen(port, '127.0.0.1', () => console.log(`listening on ${url}`));
