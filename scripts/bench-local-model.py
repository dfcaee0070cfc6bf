#!/usr/bin/env python3
"""Colmena's local engine against llama.cpp's own server (issue 35).

Same GGUF, same thread count, one machine, one run each, alternating:
`colmena serve` answering /v1/chat/completions through its engine process,
and `llama_cpp.server` (llama-cpp-python[server], which builds llama.cpp).
Both are asked the same streamed chat (temperature 0) after a warm-up:

- time to first token (ms), from the request to the first content chunk,
  on a prompt neither server has cached (the warm-up asks something else);
- prompt processing (tokens/s): prompt tokens / time to first token (the
  prompt as Colmena counts it: llama-cpp-python streams no usage);
- generation (tokens/s): tokens after the first / time after the first;
- resident memory (MB): RSS of the process holding the model (Colmena's
  engine child, llama-server itself) after the runs.

Usage: bench-local-model.py --colmena PATH --llama-python PATH --gguf FILE
       [--threads 2] [--rounds 3]
Prints a table and a JSON line of the figures.
"""

import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

PROMPT = (
    "Here are notes from a neighbourhood meeting. "
    + "The library will open until midnight on weekdays from March; the council "
    "asks for volunteers to staff the evening desk, and the café next door will "
    "stay open too. " * 20
    + "\nWrite a long, detailed article about these notes for the local paper."
)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"nothing listens on {port}")


def stream_chat(port, model, token, max_tokens, prompt=PROMPT):
    body = json.dumps({
        "model": model,
        "messages": [{"role": "user", "content": prompt}],
        "max_tokens": max_tokens,
        "temperature": 0,
        "stream": True,
        "stream_options": {"include_usage": True},
    })
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    start = time.perf_counter()
    conn.request("POST", "/v1/chat/completions", body, headers)
    response = conn.getresponse()
    if response.status != 200:
        raise SystemExit(f"{model} on {port}: {response.status} {response.read()[:300]!r}")
    first = None
    last = None
    chunks = 0
    usage = None
    for raw in response:
        line = raw.decode().strip()
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        event = json.loads(line[6:])
        if event.get("usage"):
            usage = event["usage"]
        for choice in event.get("choices", []):
            if choice.get("delta", {}).get("content"):
                now = time.perf_counter()
                first = first or now
                last = now
                chunks += 1
    conn.close()
    completion = (usage or {}).get("completion_tokens") or chunks
    prompt = (usage or {}).get("prompt_tokens")
    return {
        "ttft_ms": (first - start) * 1000,
        "gen_tps": (completion - 1) / (last - first) if last and last > first else 0.0,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "ttft_s": first - start,
    }


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def children(pid):
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def colmena_setup(args, data):
    """Pulls the GGUF into a fresh workspace and makes a token; once."""
    env = {**os.environ, "COLMENA_SECRET_BACKEND": "file"}
    run = lambda *a: subprocess.run([args.colmena, "--data-dir", data, *a], env=env, check=True,
                                    capture_output=True, text=True).stdout
    run("model", "pull", args.gguf, "--name", "bench")
    run("model", "window", "local/bench", "4096")
    return json.loads(run("--json", "author", "create", "Bench"))["token"]


def start_colmena(args, port, data):
    # The engine computes with the same threads as llama-server.
    env = {**os.environ, "COLMENA_SECRET_BACKEND": "file", "COLMENA_ENGINE_THREADS": str(args.threads)}
    return subprocess.Popen([args.colmena, "--data-dir", data, "serve", "--bind", f"127.0.0.1:{port}",
                             "--no-scheduler"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start_llama(args, port):
    return subprocess.Popen([args.llama_python, "-m", "llama_cpp.server", "--model", args.gguf,
                             "--n_threads", str(args.threads), "--n_threads_batch", str(args.threads),
                             "--n_ctx", "4096", "--port", str(port), "--chat_format", "chatml"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def median(xs):
    xs = sorted(x for x in xs if x is not None)
    return xs[len(xs) // 2] if xs else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--colmena", required=True)
    parser.add_argument("--llama-python", required=True)
    parser.add_argument("--gguf", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=256)
    args = parser.parse_args()
    data = tempfile.mkdtemp(prefix="colmena-bench-llm-")
    runs = {"colmena": [], "llama-server": []}
    try:
        token = colmena_setup(args, data)
        for side in ["colmena", "llama-server"] * args.rounds:
            port = free_port()
            proc = start_colmena(args, port, data) if side == "colmena" else start_llama(args, port)
            try:
                wait_port(port)
                auth = token if side == "colmena" else None
                # Warm-up: the load and a first decode, on another prompt, so
                # neither server has the measured prompt in its cache.
                stream_chat(port, "bench", auth, 8, prompt="Say hi.")
                figures = stream_chat(port, "bench", auth, args.max_tokens)
                # Colmena's model lives in its engine, the serve's child.
                holder = (children(proc.pid) or [proc.pid])[0] if side == "colmena" else proc.pid
                figures["rss_mb"] = rss_mb(holder)
                runs[side].append(figures)
            finally:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=60)
    finally:
        shutil.rmtree(data, ignore_errors=True)
    # llama-cpp-python's server streams no usage: its prompt is counted as
    # Colmena counted the same prompt (same GGUF, same ChatML template).
    counted = median([f["prompt_tokens"] for f in runs["colmena"]])
    for f in runs["llama-server"]:
        f["prompt_tokens"] = f["prompt_tokens"] or counted
    summary = {}
    for side, figures in runs.items():
        summary[side] = {
            "ttft_ms": median([f["ttft_ms"] for f in figures]),
            "prompt_tps": median([f["prompt_tokens"] / f["ttft_s"] if f["prompt_tokens"] else None for f in figures]),
            "gen_tps": median([f["gen_tps"] for f in figures]),
            "rss_mb": median([f["rss_mb"] for f in figures]),
            "prompt_tokens": median([f["prompt_tokens"] for f in figures]),
            "completion_tokens": median([f["completion_tokens"] for f in figures]),
        }
    c, l = summary["colmena"], summary["llama-server"]
    print(f"{'':14} {'Colmena':>10} {'llama-server':>13} {'ratio':>7}")
    for key, label in [("gen_tps", "gen tok/s"), ("prompt_tps", "prompt tok/s"), ("ttft_ms", "TTFT ms"), ("rss_mb", "RSS MB")]:
        a, b = c[key], l[key]
        ratio = f"{a / b:.2f}" if a and b else "—"
        fa = f"{a:.1f}" if a is not None else "—"
        fb = f"{b:.1f}" if b is not None else "—"
        print(f"{label:14} {fa:>10} {fb:>13} {ratio:>7}")
    print(json.dumps({"threads": args.threads, "rounds": args.rounds, **summary}))


if __name__ == "__main__":
    sys.exit(main())
