#!/usr/bin/env python3
"""A GGUF shaped like a library model, with random weights, for benchmarks.

Why: the memory goal of the local engine (resident memory <= model size +
15 %) matters for the 1-2 GB models of the library, and none of them is on
this machine (no download leaves it). Memory and speed depend on a model's
shape (layers, widths, vocabulary), not on what its weights say, so this
writes a model of Llama 3.2 1B Instruct's shape (16 layers, 2048 wide, a
128,256-token vocabulary, tied embeddings) with random Q4_0 weights. The
tokenizer and chat template are the small test model's (SmolLM2), its
vocabulary padded with unused tokens to the shape's size. What such a model
says is noise; how fast and in how much memory it says it is real.

Usage: synthetic-gguf.py SMALL.gguf OUT.gguf   (needs the `gguf` and `numpy`
Python packages; ~0.75 GB written, a few minutes on 2 cores)
"""

import sys

import gguf
import numpy as np

# Llama 3.2 1B Instruct's shape.
LAYERS = 16
WIDTH = 2048
FFN = 8192
HEADS = 32
KV_HEADS = 8
VOCAB = 128_256
CONTEXT = 8192
UNUSED = 5  # llama.cpp's LLAMA_TOKEN_TYPE_UNUSED


def field(reader, name):
    f = reader.fields[name]
    if len(f.data) == 1:
        part = f.parts[f.data[0]]
        if f.types[0] == gguf.GGUFValueType.STRING:
            return bytes(part).decode("utf-8")
        return part[0].item()
    if f.types[-1] == gguf.GGUFValueType.STRING:
        return [bytes(f.parts[i]).decode("utf-8", "surrogateescape") for i in f.data]
    return [f.parts[i][0].item() for i in f.data]


def random_q4(rng, rows, cols):
    weights = (rng.standard_normal((rows, cols), dtype=np.float32) * 0.02).astype(np.float32)
    return gguf.quants.quantize(weights, gguf.GGMLQuantizationType.Q4_0)


def main():
    small, out = sys.argv[1], sys.argv[2]
    reader = gguf.GGUFReader(small)
    tokens = field(reader, "tokenizer.ggml.tokens")
    types = field(reader, "tokenizer.ggml.token_type")
    pad = VOCAB - len(tokens)
    tokens += [f"<unused_{i}>" for i in range(pad)]
    types += [UNUSED] * pad

    w = gguf.GGUFWriter(out, "llama")
    w.add_name("Synthetic Llama-3.2-1B-shaped (random weights)")
    w.add_block_count(LAYERS)
    w.add_context_length(CONTEXT)
    w.add_embedding_length(WIDTH)
    w.add_feed_forward_length(FFN)
    w.add_head_count(HEADS)
    w.add_head_count_kv(KV_HEADS)
    w.add_rope_freq_base(500_000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(VOCAB)
    w.add_rope_dimension_count(WIDTH // HEADS)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_Q4_0)
    w.add_tokenizer_model(field(reader, "tokenizer.ggml.model"))
    w.add_tokenizer_pre(field(reader, "tokenizer.ggml.pre"))
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(field(reader, "tokenizer.ggml.merges"))
    w.add_bos_token_id(field(reader, "tokenizer.ggml.bos_token_id"))
    w.add_eos_token_id(field(reader, "tokenizer.ggml.eos_token_id"))
    w.add_add_bos_token(False)
    w.add_chat_template(field(reader, "tokenizer.chat_template"))

    rng = np.random.default_rng(42)
    q4 = gguf.GGMLQuantizationType.Q4_0
    w.add_tensor("token_embd.weight", random_q4(rng, VOCAB, WIDTH), raw_dtype=q4)
    w.add_tensor("output_norm.weight", np.ones(WIDTH, dtype=np.float32))
    kv = WIDTH // HEADS * KV_HEADS
    for n in range(LAYERS):
        b = f"blk.{n}."
        w.add_tensor(b + "attn_norm.weight", np.ones(WIDTH, dtype=np.float32))
        w.add_tensor(b + "ffn_norm.weight", np.ones(WIDTH, dtype=np.float32))
        for name, rows, cols in [("attn_q", WIDTH, WIDTH), ("attn_k", kv, WIDTH), ("attn_v", kv, WIDTH),
                                 ("attn_output", WIDTH, WIDTH), ("ffn_gate", FFN, WIDTH),
                                 ("ffn_up", FFN, WIDTH), ("ffn_down", WIDTH, FFN)]:
            w.add_tensor(b + name + ".weight", random_q4(rng, rows, cols), raw_dtype=q4)
        print(f"layer {n + 1}/{LAYERS}", flush=True)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    main()
