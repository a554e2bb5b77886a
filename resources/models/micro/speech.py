# Synthesized speech for the micro model: what each clip of a pool says and how (voice, speed,
# pitch, word gap), derived from the seed and the clip's number; espeak-ng synthesis resampled to
# 16 kHz here (resample.py), trimmed to the speech, cached as raw int16 files in the work
# directory.
import os
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import resample

SAMPLE_RATE_HZ = 16000
# The espeak-ng to run: a path, or a name looked up on PATH (a GPU machine without espeak-ng runs
# the unpacked Debian packages through a wrapper, see tests/gpu/train_micro_prepare.sh).
ESPEAK_NG = os.environ.get("EARSHOT_ESPEAK_NG", "espeak-ng")
VOICES = ["en-us", "en", "en-gb-x-rp", "en-029"]
VARIANTS = ["", "+m3", "+m7", "+f2", "+f4"]  # espeak-ng voice variants, "" = the voice itself
# The trained range, inclusive. The second model (140-200) made 19.9% WER at 220 wpm against 6.6%
# at 170: the range now reaches past the 220 wpm the accuracy tests call "faster".
SPEED_WPM = (130, 240)
PITCH = (30, 70)
WORD_GAP_10MS = (0, 8)  # espeak-ng -g, in units of 10 ms
SILENCE_LEVEL = 64  # |int16| at or below this counts as silence when trimming

# Pools: clip numbers 0..size-1 of each kind; a clip's text and voice depend only on
# (seed, pool, number). The held-out pool draws its sentences first; no training clip says one.
POOL_CODES = {"words_a": 1, "words": 2, "sentences": 3, "heldout": 4, "speakers": 5}
# Phase D's word-by-word speech: a fixed bank of speakers (voice, speed, pitch), each saying every
# word of the list alone, as Earshot's live tests speak (the default of --speakers).
SPEAKERS = 32


# The function words espeak-ng reduces in running speech ("a", "of", "and" were the words the
# second model dropped most). A share of the sentences gets 1-2 of them inserted between words.
FUNCTION_WORDS = ("a", "the", "of", "and", "an", "in", "on", "at", "is", "it", "with", "are",
                  "was", "be")  # fmt: skip
FUNCTION_SHARE = 0.35
# Pairs of words that sound close in espeak-ng's voices (close_pairs.txt, from their phonemes:
# pairs.py); a share of the sentences says both words of one pair.
PAIR_SHARE = 0.25
# A share of the sentences says one of its words twice in a row, so that a repeated word is
# heard, not guessed (the second model repeated words at a segment's start).
DOUBLE_SHARE = 0.08


@dataclass(frozen=True)
class ClipSpec:
    words: tuple[str, ...]
    voice: str
    speed_wpm: int
    pitch: int
    word_gap_10ms: int


def synthesize(spec: ClipSpec) -> np.ndarray:
    """int16 samples at 16 kHz of espeak-ng saying spec.words, leading and trailing silence cut."""
    done = subprocess.run(
        [ESPEAK_NG, "-v", spec.voice, "-s", str(spec.speed_wpm), "-p", str(spec.pitch),
         "-g", str(spec.word_gap_10ms), "--stdout", " ".join(spec.words)],
        capture_output=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"synthesis failed for {spec}: {ESPEAK_NG} exit {done.returncode}: "
                           f"{done.stderr.decode(errors='replace').strip()}")  # fmt: skip
    rate_hz, mono = resample.read_wav_int16(done.stdout)
    samples = resample.to_int16(resample.resample(mono.astype(np.float64), rate_hz,
                                                  SAMPLE_RATE_HZ))  # fmt: skip
    loud = np.nonzero(np.abs(samples.astype(np.int32)) > SILENCE_LEVEL)[0]
    if len(loud) == 0:
        raise RuntimeError(f"synthesis of {spec} is silent")
    return samples[loud[0] : loud[-1] + 1].copy()


class Vocabulary:
    """The word list (words.txt) and the phase-A subset (its first `subset_size` lines)."""

    def __init__(self, words_txt: Path, subset_size: int):
        self.path = words_txt
        self.words = [w.strip() for w in words_txt.read_text().split("\n") if w.strip()]
        if len(set(self.words)) != len(self.words):
            raise ValueError(f"{words_txt}: a word is listed twice")
        self.subset = self.words[:subset_size]


def read_pairs(path: Path, known: set[str]) -> list[tuple[str, str]]:
    """close_pairs.txt: two words a line (a third column, their phoneme distance, is ignored)."""
    if not path.exists():
        return []
    pairs = []
    for line in path.read_text().splitlines():
        fields = line.split()
        if len(fields) >= 2 and not line.startswith("#"):
            if fields[0] not in known or fields[1] not in known:
                raise ValueError(f"{path}: {fields[0]} or {fields[1]} is not in words.txt")
            pairs.append((fields[0], fields[1]))
    return pairs


class ClipPools:
    """Clip specs by (pool, number) and their cached audio."""

    def __init__(self, vocabulary: Vocabulary, seed: int, cache_dir: Path, heldout_count: int,
                 speakers: int = SPEAKERS):
        self.vocabulary = vocabulary
        self.speakers = speakers
        self.seed = seed
        self.cache_dir = cache_dir
        self.heldout = [
            self._draw("heldout", i, 3, 9, vocabulary.words) for i in range(heldout_count)
        ]
        self.heldout_texts = {spec.words for spec in self.heldout}
        self._specs: dict[tuple[str, int], ClipSpec] = {}  # drawn once (phase D draws often)
        self._words: dict[Path, np.ndarray] = {}  # the speaker bank, kept in memory
        pairs_txt = vocabulary.path.parent / "close_pairs.txt"
        self.close_pairs = read_pairs(pairs_txt, set(vocabulary.words))

    def _voice(self, rng: np.random.Generator) -> tuple[str, int, int, int]:
        voice = VOICES[rng.integers(len(VOICES))]
        if rng.random() < 0.5:
            voice += VARIANTS[rng.integers(1, len(VARIANTS))]
        speed = int(rng.integers(SPEED_WPM[0], SPEED_WPM[1] + 1))
        pitch = int(rng.integers(PITCH[0], PITCH[1] + 1))
        gap = int(rng.integers(WORD_GAP_10MS[0], WORD_GAP_10MS[1] + 1))
        return voice, speed, pitch, gap

    def _sentence(self, rng: np.random.Generator, count: int, words: list[str]) -> tuple[str, ...]:
        """A training sentence of `count` random words, with the close pairs, reduced function
        words and doubled words of the shares above."""
        text = [words[i] for i in rng.integers(len(words), size=count)]
        if self.close_pairs and rng.random() < PAIR_SHARE:
            pair = list(self.close_pairs[int(rng.integers(len(self.close_pairs)))])
            rng.shuffle(pair)
            at = int(rng.integers(len(text) - 1))
            if rng.random() < 0.5:  # side by side, else anywhere after the first
                text[at : at + 2] = pair
            else:
                text[at] = pair[0]
                text[int(rng.integers(at + 1, len(text)))] = pair[1]
        if rng.random() < FUNCTION_SHARE:
            for _ in range(int(rng.integers(1, 3))):
                word = FUNCTION_WORDS[int(rng.integers(len(FUNCTION_WORDS)))]
                text.insert(int(rng.integers(1, len(text))), word)
            text = text[:9]
        if rng.random() < DOUBLE_SHARE:
            at = int(rng.integers(len(text)))
            text.insert(at, text[at])
            text = text[:9]
        return tuple(text)

    def _draw(self, pool: str, number: int, low: int, high: int, words: list[str]) -> ClipSpec:
        rng = np.random.default_rng([self.seed, POOL_CODES[pool], number])
        for _ in range(100):
            count = int(rng.integers(low, high + 1))
            if pool == "sentences":
                text = self._sentence(rng, count, words)
            else:
                text = tuple(words[i] for i in rng.integers(len(words), size=count))
            if pool == "heldout" or count < 3 or text not in self.heldout_texts:
                break
        else:
            raise RuntimeError("cannot draw a sentence outside the held-out set")
        return ClipSpec(text, *self._voice(rng))

    def spec(self, pool: str, number: int) -> ClipSpec:
        if pool == "heldout":
            return self.heldout[number]
        found = self._specs.get((pool, number))
        if found is not None:
            return found
        if pool == "words_a":
            found = self._draw(pool, number, 1, 2, self.vocabulary.subset)
        elif pool == "words":
            found = self._draw(pool, number, 1, 3, self.vocabulary.words)
        elif pool == "sentences":
            found = self._draw(pool, number, 3, 9, self.vocabulary.words)
        else:
            raise KeyError(pool)
        self._specs[(pool, number)] = found
        return found

    def speaker(self, number: int) -> ClipSpec:
        """Speaker `number` of the word bank (its words field is empty)."""
        rng = np.random.default_rng([self.seed, POOL_CODES["speakers"], number])
        voice, speed, pitch, _ = self._voice(rng)
        return ClipSpec((), voice, speed, pitch, 0)

    def word_audio(self, speaker: int, word: str) -> np.ndarray:
        """int16 samples of one word said alone by speaker `speaker`, cached."""
        spec = self.speaker(speaker)
        path = self.cache_dir / "bank" / str(speaker) / f"{word}.pcm"
        found = self._words.get(path)
        if found is None:
            found = self._cached(path, ClipSpec((word,), spec.voice, spec.speed_wpm, spec.pitch, 0))
            self._words[path] = found
        return found

    def prefix_audio(self, pool: str, number: int, count: int) -> np.ndarray:
        """The first `count` words of a clip said with its voice, as one utterance: where those
        words end inside the whole clip, give or take the prefix's phrase-final lengthening."""
        spec = self.spec(pool, number)
        path = self.cache_dir / f"{pool}-prefix" / f"{number}-{count}.pcm"
        prefix = ClipSpec(spec.words[:count], spec.voice, spec.speed_wpm, spec.pitch,
                          spec.word_gap_10ms)  # fmt: skip
        return self._cached(path, prefix)

    def _cached(self, path: Path, spec: ClipSpec) -> np.ndarray:
        """int16 samples of `spec`, synthesized and stored at `path` (raw little-endian int16, no
        header to parse: phase D reads thousands a second) the first time."""
        if path.exists():
            return np.fromfile(path, dtype="<i2")
        samples = synthesize(spec)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".part{os.getpid()}-{threading.get_ident()}")
        samples.astype("<i2").tofile(partial)
        partial.replace(path)
        return samples

    def audio(self, pool: str, number: int) -> np.ndarray:
        """The clip's int16 samples, synthesized once and then read from the cache."""
        return self._cached(self.cache_dir / pool / f"{number}.pcm", self.spec(pool, number))
