"""A model server that fails mid-answer, run as its own process by tests/fault_*.rs.

It answers every POST with the start of a streamed chat completion (the role, then "Hello"
and " there"), prints "streaming" on stdout once those bytes are sent, and then, depending
on its one argument:

  freeze  sends nothing more and keeps the connection open, printing "closed" once the
          client closes it (so the test sees the server gave up on it);
  die     waits to be killed (the test sends SIGKILL: the process dies mid-answer).

It prints "port N" first. Standard library only.
"""

import json
import select
import socket
import sys


def chunk(delta):
    body = {
        "id": "chatcmpl-fault",
        "object": "chat.completion.chunk",
        "created": 1764500000,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
    }
    return ("data: " + json.dumps(body) + "\n\n").encode()


def read_request(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        more = conn.recv(65536)
        if not more:
            return False
        data += more
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        more = conn.recv(65536)
        if not more:
            return False
        body += more
    return True


def main():
    mode = sys.argv[1]
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    print("port", listener.getsockname()[1], flush=True)
    while True:
        conn, _ = listener.accept()
        if not read_request(conn):
            conn.close()
            continue
        conn.sendall(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"cache-control: no-cache\r\nconnection: close\r\n\r\n"
        )
        for delta in ({"role": "assistant", "content": ""}, {"content": "Hello"}, {"content": " there"}):
            conn.sendall(chunk(delta))
        print("streaming", flush=True)
        if mode == "freeze":
            # Silent from now on; the client closing its end makes the socket readable.
            while True:
                readable, _, _ = select.select([conn], [], [], 1.0)
                if readable and not conn.recv(65536):
                    print("closed", flush=True)
                    conn.close()
                    break
        else:
            select.select([], [], [])


if __name__ == "__main__":
    main()
