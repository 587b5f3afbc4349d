"""Serves a GGUF model with llama.cpp's OpenAI-compatible HTTP server (the xllamacpp wheel)
on 127.0.0.1:PORT until SIGTERM/SIGINT or until its parent goes away. Prints one line
`ready http://127.0.0.1:PORT/v1` on stdout once it listens.

    python serve.py MODEL.gguf ALIAS PORT [THREADS] [CTX]
"""
import os
import signal
import sys
import threading
import time

import xllamacpp as xlc

gguf, alias, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
threads = int(sys.argv[4]) if len(sys.argv) > 4 else 1
ctx = int(sys.argv[5]) if len(sys.argv) > 5 else 8192
params = xlc.CommonParams()
params.model.path = gguf
params.model_alias = {alias}
params.hostnames = ["127.0.0.1"]
params.port = port
params.n_ctx = ctx
params.n_parallel = 1
params.cpuparams.n_threads = threads
params.cpuparams_batch.n_threads = threads
params.use_jinja = True
params.ui = False
# With SLOT_SAVE_PATH the slot's prompt cache can be saved and restored across runs
# (POST /slots/0?action=save|restore), so a long system prompt is read once. llama.cpp
# joins the folder and the file name as plain strings (its `--slot-save-path` parser adds
# the separator; these params do not), so the folder must end with one.
if os.environ.get("SLOT_SAVE_PATH"):
    params.slot_save_path = os.path.join(os.environ["SLOT_SAVE_PATH"], "")
server = xlc.Server(params)
print(f"ready http://127.0.0.1:{port}/v1", flush=True)
stop = threading.Event()
for sig in (signal.SIGTERM, signal.SIGINT):
    signal.signal(sig, lambda *_: stop.set())
parent = os.getppid()
while not stop.wait(0.5):
    if os.getppid() != parent:  # the test that started us is gone
        break
