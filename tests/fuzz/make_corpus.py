#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/): tiny valid inputs
built here, plus the block declarations quoted from engine/src/model/*.cpp, and short tones
encoded by the ffmpeg tool (and sox, for FLAC) in each container the audio decoder is fuzzed with.

Run from anywhere: python3 tests/fuzz/make_corpus.py. The output is deterministic."""

import json
import re
import struct
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CORPUS = HERE / "corpus"


def write(target: str, name: str, data: bytes) -> None:
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


def safetensors(tensors: dict, data: bytes, metadata: dict | None = None) -> bytes:
    header = dict(tensors)
    if metadata is not None:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the reference writer pads the header to 8 bytes
    return struct.pack("<Q", len(text)) + text + data


def safetensors_seeds() -> None:
    two = safetensors(
        {
            "encoder.conv1.bias": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
            "encoder.conv1.weight": {"dtype": "F16", "shape": [1, 2], "data_offsets": [8, 12]},
        },
        struct.pack("<2f", 0.5, -1.0) + struct.pack("<2e", 1.0, 2.0),
        {"format": "pt"},
    )
    write("safetensors_header", "two_tensors.safetensors", two)
    scalar = safetensors({"step": {"dtype": "I64", "shape": [], "data_offsets": [0, 8]}},
                         struct.pack("<q", 7))
    write("safetensors_header", "scalar.safetensors", scalar)
    write("safetensors_header", "empty.safetensors", safetensors({}, b""))


def ggml(tensors: list) -> bytes:
    out = struct.pack("<I", 0x67676D6C)  # "ggml" magic, little-endian
    # n_vocab, n_audio_ctx, n_audio_state, n_audio_head, n_audio_layer, n_text_ctx, n_text_state,
    # n_text_head, n_text_layer, n_mels, ftype (whisper.cpp order), shrunk to toy sizes
    out += struct.pack("<11i", 4, 8, 4, 2, 1, 8, 4, 2, 1, 2, 0)
    out += struct.pack("<ii", 2, 3) + struct.pack("<6f", 0.0, 0.5, 1.0, 1.5, 2.0, 2.5)
    vocab = [b"a", b"", b"bc", b"\xe2\x96\x81"]
    out += struct.pack("<i", len(vocab))
    for token in vocab:
        out += struct.pack("<I", len(token)) + token
    for name, ttype, ne, data in tensors:
        out += struct.pack("<iii", len(ne), len(name), ttype)
        out += struct.pack(f"<{len(ne)}i", *ne) + name + data
    return out


def f16(value: float) -> bytes:
    return struct.pack("<e", value)


def ggml_seeds() -> None:
    bias = (b"encoder.conv1.bias", 0, [2], struct.pack("<2f", 0.25, -0.25))
    write("ggml_file", "one_tensor.bin", ggml([bias]))
    write("ggml_file", "no_tensors.bin", ggml([]))
    # Quantized tensors, one or two blocks each (ggml-common.h layouts; ggml_type ids):
    # q4_0 (2): d + 16 nibble bytes; q8_0 (8): d + 32 int8; q5_1 (7): d, m, qh[4], qs[16].
    q4_0 = f16(0.5) + bytes(range(0x10, 0x20))
    q8_0 = f16(0.125) + bytes((8 * j) & 0xFF for j in range(32))
    q5_1 = f16(0.5) + f16(-1.0) + bytes([1, 0, 0, 0x80]) + bytes(range(16))
    write("ggml_file", "legacy_quants.bin", ggml([
        (b"decoder.token_embedding.weight", 2, [32, 2], q4_0 + q4_0),
        (b"decoder.blocks.0.mlp.0.weight", 8, [32, 1], q8_0),
        (b"decoder.blocks.0.mlp.2.weight", 7, [32, 1], q5_1),
    ]))
    # k-quants, 256 values per block: q4_k (12): d, dmin, scales[12], qs[128]; q6_k (14): ql[128],
    # qh[64], scales[16] int8, d; q2_k (10): scales[16], qs[64], d, dmin; q3_k (11): hmask[32],
    # qs[64], scales[12], d; q5_k (13): d, dmin, scales[12], qh[32], qs[128].
    q4_k = f16(0.5) + f16(0.25) + bytes([0x41, 0x42, 0x43, 0x44, 0x81, 2, 3, 4, 0x21, 0x32, 0x43,
                                         0x54]) + bytes(i & 0xFF for i in range(128))
    q6_k = bytes(range(128)) + bytes([0xE4] * 64) + bytes((i - 8) & 0xFF for i in range(16)) \
        + f16(0.25)
    q2_k = bytes(range(16)) + bytes([0xE4] * 64) + f16(0.5) + f16(1.0)
    q3_k = bytes([0x0F] * 32) + bytes([0xE4] * 64) + bytes([8, 0x19, 0x2A, 0x3B, 0x4C, 0x5D, 0x6E,
                                                          0x7F, 0xA5, 0xA5, 0xA5, 0xA5]) + f16(0.5)
    q5_k = q4_k[:16] + bytes(1 << (i % 8) for i in range(32)) + q4_k[16:]
    write("ggml_file", "k_quants.bin", ggml([
        (b"encoder.blocks.0.attn.query.weight", 12, [256, 1], q4_k),
        (b"encoder.blocks.0.attn.key.weight", 14, [256, 1], q6_k),
        (b"encoder.blocks.0.attn.value.weight", 10, [256, 1], q2_k),
        (b"encoder.blocks.0.attn.out.weight", 11, [256, 1], q3_k),
        (b"encoder.blocks.0.mlp.0.weight", 13, [256, 1], q5_k),
    ]))


def cpp_string_literals(text: str) -> list:
    """Adjacent C++ string literals joined, in order (no escapes occur in the declarations)."""
    pieces = []
    previous_end = None
    for match in re.finditer(r'"((?:[^"\\]|\\.)*)"', text):
        between = text[previous_end:match.start()] if previous_end is not None else ","
        if previous_end is not None and between.strip() == "":
            pieces[-1] += match.group(1)
        else:
            pieces.append(match.group(1))
        previous_end = match.end()
    return pieces


def syntax_seeds() -> None:
    for source in sorted((ROOT / "engine" / "src" / "model").glob("*.cpp")):
        text = source.read_text()
        for index, match in enumerate(re.finditer(r"parse_block\((.*?)\);", text, re.S)):
            lines = cpp_string_literals(match.group(1))
            if lines:
                name = f"{source.stem}_{index}.txt"
                write("declaration_syntax", name, ("\n".join(lines) + "\n").encode())
    write("declaration_syntax", "dims.txt",
          b"1 + (-1 + Frames) / 2\nmin(A, B) * 2 - max(C, 3)\n(Heads * Dh) / Heads % 4\n"
          b"-(X / 2) - Y % -3\n")
    write("declaration_syntax", "types.txt",
          b"Tensor[*S, H; T]?\ni32\nTensor[B, 1 + (-1 + Frames) / 2, D; f16]\nTensor[; bool]\n")


def config_seeds() -> None:
    config = {
        "num_mel_bins": 80, "max_source_positions": 1500, "d_model": 384,
        "encoder_attention_heads": 6, "encoder_layers": 4, "encoder_ffn_dim": 1536,
        "max_target_positions": 448, "decoder_attention_heads": 6, "decoder_layers": 4,
        "decoder_ffn_dim": 1536, "vocab_size": 51865, "torch_dtype": "float16",
    }
    write("whisper_config", "tiny.json", json.dumps(config, indent=1).encode())
    config.pop("torch_dtype")
    config["dtype"] = None
    write("whisper_config", "no_dtype.json", json.dumps(config).encode())


def tokenizer_text_seeds() -> None:
    write("tokenizer_text", "hello.txt", b"Hello world")
    write("tokenizer_text", "mixed.txt",
          "  don't   stop\n\n\tit's 12345 café при 你好 👍🏽!!".encode())
    write("tokenizer_text", "invalid_utf8.bin", b"ok \xff\xfe bad \xe4\xbd \xed\xa0\x80 end\xc3")


def safetensors_index_seeds() -> None:
    # The fuzz target's directory holds these two shards (fuzz_safetensors_index.cpp).
    first, second = "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"
    both = {"model.encoder.conv1.bias": first, "model.decoder.layer_norm.weight": second}
    index = {"metadata": {"total_size": 12}, "weight_map": both}
    write("safetensors_index", "two_shards.json", json.dumps(index, indent=2).encode())
    write("safetensors_index", "one_shard.json",
          json.dumps({"weight_map": {"model.encoder.conv1.bias": first}}).encode())
    swapped = {"model.encoder.conv1.bias": second, "model.decoder.layer_norm.weight": first}
    write("safetensors_index", "swapped.json", json.dumps({"weight_map": swapped}).encode())
    missing = {"model.encoder.conv1.bias": "model-00003-of-00003.safetensors"}
    write("safetensors_index", "missing_shard.json", json.dumps({"weight_map": missing}).encode())
    write("safetensors_index", "empty_map.json", b'{"metadata":{},"weight_map":{}}')


def npy(descr: str, shape: tuple, data: bytes, version: int = 1) -> bytes:
    dims = ", ".join(str(d) for d in shape) if len(shape) != 1 else f"{shape[0]},"
    text = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({dims}), }}"
    length_bytes = 2 if version == 1 else 4
    pad = -(6 + 2 + length_bytes + len(text) + 1) % 64
    text += " " * pad + "\n"
    length = struct.pack("<H" if version == 1 else "<I", len(text))
    return b"\x93NUMPY" + bytes([version, 0]) + length + text.encode() + data


def npy_seeds() -> None:
    write("npy_file", "f32_2x3.npy", npy("<f4", (2, 3), struct.pack("<6f", *range(6))))
    write("npy_file", "i32_4_v2.npy", npy("<i4", (4,), struct.pack("<4i", -1, 0, 1, 50257), 2))
    write("npy_file", "scalar.npy", npy("<f4", (), struct.pack("<f", 0.25)))
    write("npy_file", "empty.npy", npy("<f4", (0, 80), b""))
    write("npy_file", "big_endian.npy", npy(">f4", (1,), struct.pack(">f", 1.0)))


def live_journal_seeds() -> None:
    def session(stamp: str) -> bytes:
        return f"--- earshot live {stamp} ---\n".encode()

    two = session("2026-12-01T07:00:00Z") + b" And so my fellow Americans," + b"\n"
    two += session("2026-12-01T07:05:00Z") + b" ask not what your country can do for you."
    write("live_journal", "two_sessions.txt", two)
    # Killed in the middle of "\u00e9" (two bytes): the torn byte ends the file.
    write("live_journal", "torn.txt", session("2026-12-01T07:10:00Z") + b" caf\xc3")
    write("live_journal", "foreign_text_first.txt",
          "notes typed by hand\n".encode() + session("2026-12-01T07:20:00Z") + " 日本語".encode())


def audio_seeds() -> None:
    # 0.1 s of a 440 Hz tone at 8 kHz: a few KB or less in every container; bit-exact output so
    # that running this again writes the same files.
    formats = {
        "tone.wav": ["-c:a", "pcm_s16le"],
        "tone.mp3": ["-c:a", "libmp3lame", "-b:a", "32k"],
        "tone.ogg": ["-c:a", "libvorbis", "-q:a", "0"],
        "tone.m4a": ["-c:a", "aac", "-b:a", "24k"],
        "stereo.wav": ["-ac", "2", "-c:a", "pcm_u8"],
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, codec in formats.items():
            out = Path(tmp) / name
            subprocess.run(
                ["ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                 "sine=frequency=440:sample_rate=8000:duration=0.1", "-fflags", "+bitexact",
                 "-flags:a", "+bitexact", "-map_metadata", "-1", *codec, str(out)],
                check=True)
            write("audio_file", name, out.read_bytes())
        # The ffmpeg tool's FLAC muxer pads the header by 8 KB; sox (repeatable, no dither) does not.
        flac = Path(tmp) / "tone.flac"
        subprocess.run(["sox", "-R", "-D", "-n", "-r", "8000", "-b", "16", "-c", "1", str(flac),
                        "synth", "0.1", "sine", "440"], check=True)
        write("audio_file", "tone.flac", flac.read_bytes())


if __name__ == "__main__":
    safetensors_seeds()
    ggml_seeds()
    syntax_seeds()
    config_seeds()
    tokenizer_text_seeds()
    safetensors_index_seeds()
    npy_seeds()
    live_journal_seeds()
    audio_seeds()
