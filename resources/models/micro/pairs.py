# Writes close_pairs.txt: the pairs of words.txt that sound closest in espeak-ng (en-us), by the
# edit distance of their phoneme strings (`espeak-ng -q -x`, stress marks dropped) relative to the
# longer one. The recipe says both words of a pair in one sentence now and then (speech.py).
import argparse
import subprocess
from pathlib import Path

import evaluate
import speech

HERE = Path(__file__).resolve().parent


def phonemes(word: str) -> list[str]:
    """espeak-ng's phoneme mnemonics of `word`, one a list entry (multi-character ones such as
    'aI' or 'tS' stay split: the distance counts characters)."""
    done = subprocess.run([speech.ESPEAK_NG, "-q", "-x", "-v", "en-us", word], capture_output=True,
                          text=True, check=True)  # fmt: skip
    return [c for c in done.stdout.strip() if c not in "',_ \n"]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", type=Path, default=HERE / "close_pairs.txt")
    p.add_argument("--max-distance", type=float, default=0.34,
                   help="edit distance / phonemes of the longer word, at most")
    args = p.parse_args()
    words = speech.Vocabulary(HERE / "words.txt", 100).words
    said = {w: phonemes(w) for w in words}
    pairs = []
    for i, a in enumerate(words):
        for b in words[i + 1 :]:
            longer = max(len(said[a]), len(said[b]))
            distance = evaluate.edit_distance(said[a], said[b]) / longer
            if distance <= args.max_distance and min(len(said[a]), len(said[b])) >= 2:
                pairs.append((distance, a, b))
    pairs.sort()
    lines = ["# word word distance (pairs.py: espeak-ng en-us phonemes, edit distance / longer)"]
    lines += [f"{a} {b} {d:.2f}" for d, a, b in pairs]
    args.out.write_text("\n".join(lines) + "\n")
    print(f"{len(pairs)} pairs -> {args.out}")


if __name__ == "__main__":
    main()
