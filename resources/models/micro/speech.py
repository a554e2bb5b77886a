# Synthesized speech for the micro model: what each clip of a pool says and how (voice, speed,
# pitch, word gap), derived from the seed and the clip's number; espeak-ng + sox synthesis at
# 16 kHz, trimmed to the speech, cached as int16 .npy files in the work directory.
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SAMPLE_RATE_HZ = 16000
VOICES = ["en-us", "en", "en-gb-x-rp", "en-029"]
VARIANTS = ["", "+m3", "+m7", "+f2", "+f4"]  # espeak-ng voice variants, "" = the voice itself
SPEED_WPM = (140, 200)  # the trained range, inclusive
PITCH = (30, 70)
WORD_GAP_10MS = (0, 8)  # espeak-ng -g, in units of 10 ms
SILENCE_LEVEL = 64  # |int16| at or below this counts as silence when trimming

# Pools: clip numbers 0..size-1 of each kind; a clip's text and voice depend only on
# (seed, pool, number). The held-out pool draws its sentences first; no training clip says one.
POOL_CODES = {"words_a": 1, "words": 2, "sentences": 3, "heldout": 4, "speakers": 5}
# Phase D's word-by-word speech: a fixed bank of speakers (voice, speed, pitch), each saying every
# word of the list alone, as Earshot's live tests speak.
SPEAKERS = 32


@dataclass(frozen=True)
class ClipSpec:
    words: tuple[str, ...]
    voice: str
    speed_wpm: int
    pitch: int
    word_gap_10ms: int


def synthesize(spec: ClipSpec) -> np.ndarray:
    """int16 samples at 16 kHz of espeak-ng saying spec.words, leading and trailing silence cut."""
    espeak = subprocess.Popen(
        ["espeak-ng", "-v", spec.voice, "-s", str(spec.speed_wpm), "-p", str(spec.pitch),
         "-g", str(spec.word_gap_10ms), "--stdout", " ".join(spec.words)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    sox = subprocess.run(
        ["sox", "-t", "wav", "-", "-t", "raw", "-e", "signed", "-b", "16", "-c", "1",
         "-r", str(SAMPLE_RATE_HZ), "-"],
        stdin=espeak.stdout, capture_output=True, check=False,
    )  # fmt: skip
    espeak.stdout.close()
    if espeak.wait() != 0 or sox.returncode != 0:
        raise RuntimeError(
            f"synthesis failed for {spec}: espeak-ng exit {espeak.returncode}, sox exit "
            f"{sox.returncode}: {sox.stderr.decode(errors='replace').strip()}"
        )
    samples = np.frombuffer(sox.stdout, dtype=np.int16)
    loud = np.nonzero(np.abs(samples.astype(np.int32)) > SILENCE_LEVEL)[0]
    if len(loud) == 0:
        raise RuntimeError(f"synthesis of {spec} is silent")
    return samples[loud[0] : loud[-1] + 1].copy()


class Vocabulary:
    """The word list (words.txt) and the phase-A subset (its first `subset_size` lines)."""

    def __init__(self, words_txt: Path, subset_size: int):
        self.words = [w.strip() for w in words_txt.read_text().split("\n") if w.strip()]
        if len(set(self.words)) != len(self.words):
            raise ValueError(f"{words_txt}: a word is listed twice")
        self.subset = self.words[:subset_size]


class ClipPools:
    """Clip specs by (pool, number) and their cached audio."""

    def __init__(self, vocabulary: Vocabulary, seed: int, cache_dir: Path, heldout_count: int):
        self.vocabulary = vocabulary
        self.seed = seed
        self.cache_dir = cache_dir
        self.heldout = [
            self._draw("heldout", i, 3, 9, vocabulary.words) for i in range(heldout_count)
        ]
        self.heldout_texts = {spec.words for spec in self.heldout}

    def _voice(self, rng: np.random.Generator) -> tuple[str, int, int, int]:
        voice = VOICES[rng.integers(len(VOICES))]
        if rng.random() < 0.5:
            voice += VARIANTS[rng.integers(1, len(VARIANTS))]
        speed = int(rng.integers(SPEED_WPM[0], SPEED_WPM[1] + 1))
        pitch = int(rng.integers(PITCH[0], PITCH[1] + 1))
        gap = int(rng.integers(WORD_GAP_10MS[0], WORD_GAP_10MS[1] + 1))
        return voice, speed, pitch, gap

    def _draw(self, pool: str, number: int, low: int, high: int, words: list[str]) -> ClipSpec:
        rng = np.random.default_rng([self.seed, POOL_CODES[pool], number])
        for _ in range(100):
            count = int(rng.integers(low, high + 1))
            text = tuple(words[i] for i in rng.integers(len(words), size=count))
            if pool == "heldout" or count < 3 or text not in self.heldout_texts:
                break
        else:
            raise RuntimeError("cannot draw a sentence outside the held-out set")
        return ClipSpec(text, *self._voice(rng))

    def spec(self, pool: str, number: int) -> ClipSpec:
        if pool == "heldout":
            return self.heldout[number]
        if pool == "words_a":
            return self._draw(pool, number, 1, 2, self.vocabulary.subset)
        if pool == "words":
            return self._draw(pool, number, 1, 3, self.vocabulary.words)
        if pool == "sentences":
            return self._draw(pool, number, 3, 9, self.vocabulary.words)
        raise KeyError(pool)

    def speaker(self, number: int) -> ClipSpec:
        """Speaker `number` of the word bank (its words field is empty)."""
        rng = np.random.default_rng([self.seed, POOL_CODES["speakers"], number])
        voice, speed, pitch, _ = self._voice(rng)
        return ClipSpec((), voice, speed, pitch, 0)

    def word_audio(self, speaker: int, word: str) -> np.ndarray:
        """int16 samples of one word said alone by speaker `speaker`, cached."""
        spec = self.speaker(speaker)
        path = self.cache_dir / "bank" / str(speaker) / f"{word}.npy"
        return self._cached(path, ClipSpec((word,), spec.voice, spec.speed_wpm, spec.pitch, 0))

    def prefix_audio(self, pool: str, number: int, count: int) -> np.ndarray:
        """The first `count` words of a clip said with its voice, as one utterance: where those
        words end inside the whole clip, give or take the prefix's phrase-final lengthening."""
        spec = self.spec(pool, number)
        path = self.cache_dir / f"{pool}-prefix" / f"{number}-{count}.npy"
        prefix = ClipSpec(spec.words[:count], spec.voice, spec.speed_wpm, spec.pitch,
                          spec.word_gap_10ms)  # fmt: skip
        return self._cached(path, prefix)

    def _cached(self, path: Path, spec: ClipSpec) -> np.ndarray:
        """int16 samples of `spec`, synthesized and stored at `path` the first time."""
        if path.exists():
            return np.load(path)
        samples = synthesize(spec)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".part{threading.get_ident()}.npy")
        np.save(partial, samples)
        partial.replace(path)
        return samples

    def audio(self, pool: str, number: int) -> np.ndarray:
        """The clip's int16 samples, synthesized once and then read from the cache."""
        return self._cached(self.cache_dir / pool / f"{number}.npy", self.spec(pool, number))
