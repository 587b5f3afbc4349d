"""Writes the streamed chat-completions answers the mock model server replays.

Each `.sse` file is an answer body exactly as OpenAI's `POST /v1/chat/completions` with
`stream: true` and `stream_options.include_usage` sends it: `data: {chunk}` events separated by
a blank line, the first delta carrying only the role, content in token-sized pieces, a chunk
with `finish_reason`, a usage chunk with `choices: []`, then `data: [DONE]`. The variants
(an error mid-stream, a body cut off, no `[DONE]`) differ only at the end.

Run from this folder: python3 make_fixtures.py
"""

import json
import re

CREATED = 1764500000
MODEL = 'mock-model'


def chunk(delta, finish=None, usage=None, choices=True):
    body = {
        'id': 'chatcmpl-mock',
        'object': 'chat.completion.chunk',
        'created': CREATED,
        'model': MODEL,
        'system_fingerprint': 'fp_mock',
        'choices': [{'index': 0, 'delta': delta, 'logprobs': None, 'finish_reason': finish}] if choices else [],
    }
    body['usage'] = usage
    return 'data: ' + json.dumps(body, separators=(',', ':')) + '\n\n'


def tokens(text):
    """Token-sized pieces: a word with its leading space, or one punctuation mark."""
    return re.findall(r' ?[A-Za-z0-9_]{1,8}|\s+|.', text, flags=re.S)


def answer(text, end='done'):
    out = [chunk({'role': 'assistant', 'content': ''}), chunk({'content': ''})]
    pieces = tokens(text)
    assert ''.join(pieces) == text
    out += [chunk({'content': p}) for p in pieces]
    if end == 'cut':
        return ''.join(out)
    if end == 'error':
        out.append('data: ' + json.dumps({'error': {'message': 'The server had an error while processing your request.', 'type': 'server_error', 'code': 'internal_error'}}) + '\n\n')
        return ''.join(out)
    out.append(chunk({}, finish='stop'))
    usage = {'prompt_tokens': 900, 'completion_tokens': len(pieces), 'total_tokens': 900 + len(pieces)}
    out.append(chunk(None, usage=usage, choices=False))
    if end == 'done':
        out.append('data: [DONE]\n\n')
    return ''.join(out)


def block(messages):
    return '<a2ui-json>\n' + json.dumps(messages) + '\n</a2ui-json>'


def v09(components, surface='order'):
    return [
        {'version': 'v0.9', 'createSurface': {'surfaceId': surface, 'catalogId': 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json'}},
        {'version': 'v0.9', 'updateComponents': {'surfaceId': surface, 'components': components}},
    ]


GOOD_V09 = [
    {'id': 'root', 'component': 'Column', 'children': ['title', 'details']},
    {'id': 'title', 'component': 'Text', 'text': 'Your order', 'variant': 'h2'},
    {'id': 'details', 'component': 'Text', 'text': '2 pizzas at 19:30'},
]
BAD_V09 = [
    {'id': 'root', 'component': 'Column', 'children': ['title', 'details']},
    {'id': 'title', 'component': 'Text', 'text': 'Your order', 'variant': 'h2'},
    {'id': 'details', 'component': 'Marquee', 'text': '2 pizzas at 19:30'},
]
GOOD_V08 = [
    {'beginRendering': {'surfaceId': 'order', 'root': 'root'}},
    {'surfaceUpdate': {'surfaceId': 'order', 'components': [
        {'id': 'root', 'component': {'Column': {'children': {'explicitList': ['title', 'details']}}}},
        {'id': 'title', 'component': {'Text': {'text': {'literalString': 'Your order'}, 'usageHint': 'h2'}}},
        {'id': 'details', 'component': {'Text': {'text': {'literalString': '2 pizzas at 19:30'}}}},
    ]}},
]



FIXTURES = {
    'text.sse': answer('Hello there! How can I help?'),
    'no_done.sse': answer('Hello there!', end='no_done'),
    'cut_off.sse': answer('Hello the', end='cut'),
    'error_mid_stream.sse': answer('Hello', end='error'),
    'ui_v0_9.sse': answer('Here is your order:\n' + block(v09(GOOD_V09)) + '\nAnything else?'),
    'ui_v0_8.sse': answer('Here is your order:\n' + block(GOOD_V08) + '\nAnything else?'),
    'invalid_v0_9.sse': answer('Here is your order:\n' + block(v09(BAD_V09)) + '\nAnything else?'),
    'repaired_v0_9.sse': answer(block([v09(GOOD_V09)[1]]) + '\nFixed.'),
}

for name, body in FIXTURES.items():
    with open(name, 'w') as out:
        out.write(body)
