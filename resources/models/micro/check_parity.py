# Checks an exported micro model against Earshot itself: `earshot inspect` binds it, `earshot
# debug logits` on the parity fixture's mel and tokens reproduces PyTorch's logits, and `earshot
# debug mel` of a synthesized WAV equals this recipe's log-mel. The expected sizes are the
# export's config.json.
import argparse
import json
import re
import subprocess
import sys
import tempfile
import wave
from pathlib import Path

import numpy as np
import torch

import features
import speech

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]


def run(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def check_inspect(earshot: str, model_dir: Path) -> bool:
    text = run([earshot, "inspect", "--model", str(model_dir)])
    bound = dict(re.findall(r"^(Mels|Frames|D|Heads|Inner|EncoderLayers|DecoderLayers|Vocab|"
                            r"MaxTokens|T)\t(\S+)$", text, flags=re.M))  # fmt: skip
    config = json.loads((model_dir / "config.json").read_text())
    expected = {"Mels": "80", "Frames": "600", "D": str(config["d_model"]),
                "Heads": str(config["encoder_attention_heads"]),
                "Inner": str(config["encoder_ffn_dim"]),
                "EncoderLayers": str(config["encoder_layers"]),
                "DecoderLayers": str(config["decoder_layers"]), "Vocab": "51864"}  # fmt: skip
    ok = all(bound.get(k) == v for k, v in expected.items())
    print(f"inspect: {bound} -> {'ok' if ok else 'MISMATCH'}")
    return ok


def check_logits(earshot: str, model_dir: Path, parity: Path, tolerance: float, tmp: Path) -> bool:
    fixture = np.load(parity)
    np.save(tmp / "mel.npy", fixture["mel"])
    ids = ",".join(str(int(t)) for t in fixture["tokens"])
    run([earshot, "debug", "logits", "--model", str(model_dir), "--mel", str(tmp / "mel.npy"),
         "--tokens", ids, "--out", str(tmp / "logits.npy")])  # fmt: skip
    theirs = np.load(tmp / "logits.npy")[fixture["positions"]]  # [P, Vocab]
    ours = fixture["logits"]
    diff = np.abs(theirs.astype(np.float64) - ours)
    relative = diff.max() / np.abs(ours).max()
    same_argmax = bool((theirs.argmax(-1) == ours.argmax(-1)).all())
    ok = relative <= tolerance and same_argmax
    print(f"logits: tokens {ids}, positions {fixture['positions'].tolist()}: max |diff| "
          f"{diff.max():.3e}, max |logit| {np.abs(ours).max():.3f}, relative {relative:.3e} "
          f"(tolerance {tolerance:g}), argmax equal {same_argmax} -> {'ok' if ok else 'MISMATCH'}")
    return ok


def check_mel(earshot: str, tmp: Path) -> bool:
    spec = speech.ClipSpec(("please", "call", "me", "back", "after", "lunch"), "en-us", 170, 50, 2)
    samples = speech.synthesize(spec)
    wav = tmp / "speech.wav"
    with wave.open(str(wav), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16000)
        out.writeframes(samples.tobytes())
    run([earshot, "debug", "mel", "--in", str(wav), "--mels", "80", "--frames", "600",
         "--out", str(tmp / "earshot_mel.npy")])  # fmt: skip
    theirs = np.load(tmp / "earshot_mel.npy")
    ours = features.LogMel()(torch.from_numpy(samples.astype(np.float32) / 32768.0)[None])[0]
    diff = float(np.abs(theirs - ours.numpy()).max())
    ok = theirs.shape == (80, 600) and diff < 1e-3
    verdict = "ok" if ok else "MISMATCH"
    print(f"mel: earshot {theirs.shape} vs recipe: max |diff| {diff:.3e} -> {verdict}")
    return ok


def main() -> None:
    p = argparse.ArgumentParser(description="Check an exported micro model against Earshot.")
    p.add_argument("--earshot", default=str(REPO / "build/default/app/earshot"))
    p.add_argument("--model-dir", type=Path, default=HERE / "model")
    p.add_argument("--parity", type=Path, default=REPO / "tests/golden/micro/parity.npz")
    p.add_argument("--tolerance", type=float, default=1e-3, help="max |diff| / max |logit|")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        results = [check_inspect(args.earshot, args.model_dir),
                   check_logits(args.earshot, args.model_dir, args.parity, args.tolerance, tmp),
                   check_mel(args.earshot, tmp)]  # fmt: skip
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
