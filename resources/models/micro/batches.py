# Training batches for the micro model: the step-based curriculum (phase A short clips from the
# word subset, phase B short clips from the whole list, phase C sentences with 30% short clips,
# phase D stream windows as long form and live cut them, mixed with phase C items), placement of
# the speech in the 6 s window, and the token sequences in both prompt modes.
from dataclasses import dataclass

import numpy as np

import streams
import tokens
from speech import SAMPLE_RATE_HZ, ClipPools

WINDOW_SAMPLES = 6 * SAMPLE_RATE_HZ
MAX_START_S = 1.0  # Whisper's first-timestamp rule allows <|0.00|> .. <|1.00|>
PAIR_PAUSE_S = (0.3, 1.2)


@dataclass
class Curriculum:
    phase_a_steps: int = 700  # 1-2 word clips from the word subset
    phase_b_steps: int = 900  # then 1-3 word clips from the whole list
    pool_words_a: int = 4000
    pool_words: int = 8000
    pool_sentences: int = 12000
    short_share_c: float = 0.3  # phase C: share of 1-3 word clips among sentences
    pair_share_c: float = 0.25  # phase C: share of two-sentence clips among the sentence items
    prompt_share_c: float = 0.15  # phase C: share with a <|startofprev|> prompt (a sentence)
    timestamp_share: float = 0.5  # timestamps mode vs <|notimestamps|>
    phase_d_start: int = 10000  # then stream windows mixed with phase C items
    stream_share_d: float = 0.65  # phase D: share of stream windows
    words_share_d: float = 0.4  # phase D: share of word-by-word streams among them
    prompt_share_d: float = 0.4  # phase D: share with a <|startofprev|> prompt of 1-223 tokens
    lead_zero_share_d: float = 0.25  # phase D: share of phase C items whose speech starts at 0
    peak_d: tuple[float, float] = (0.05, 1.0)  # phase D: peak level range
    cut_pool_d: int = 0  # phase D: cut sentences come from the first this many (0: all)

    def phase(self, step: int) -> str:
        if step < self.phase_a_steps:
            return "A"
        if step < self.phase_a_steps + self.phase_b_steps:
            return "B"
        return "C" if step < self.phase_d_start else "D"


@dataclass
class Batch:
    samples: np.ndarray  # [B, 96000] int16, as a recording holds them (half the bytes to move)
    inputs: np.ndarray  # [B, S] int64 decoder input ids
    targets: np.ndarray  # [B, S] int64 next ids
    loss_mask: np.ndarray  # [B, S] float32, 1 where the target is learned
    texts: list[list[int]]  # [B] text token ids (the CTC targets)


@dataclass
class Item:
    samples: np.ndarray  # [96000] float32
    sequence: list[int]  # full decoder sequence, ending in EOT
    first_learned: int  # index in `sequence` of the first token that is a target
    text: list[int]


def level(rng: np.random.Generator, window: np.ndarray, peak: tuple[float, float]) -> np.ndarray:
    """The window scaled to a random peak, half the time with faint white noise."""
    window = window * (rng.uniform(*peak) / max(float(np.abs(window).max()), 1e-6))
    if rng.random() < 0.5:
        sigma = 10 ** rng.uniform(-4.0, -2.3)
        window += rng.standard_normal(WINDOW_SAMPLES, dtype=np.float32) * np.float32(sigma)
    return window.astype(np.float32)


def place(rng: np.random.Generator, parts: list[np.ndarray], lead_zero_share: float = 0.0,
          peak: tuple[float, float] = (0.1, 0.9)) -> tuple[np.ndarray, list[float]]:
    """One or two int16 clips laid into a 6 s window: the first starts at most 1.0 s in, a pause
    separates them, a random peak level and sometimes a little white noise. Returns the window
    [96000] float32 and the start/end time of each clip in seconds (or raises ValueError when
    they do not fit)."""
    lengths = [len(p) for p in parts]
    pauses = [int(rng.uniform(*PAIR_PAUSE_S) * SAMPLE_RATE_HZ) for _ in parts[1:]]
    slack = WINDOW_SAMPLES - sum(lengths) - sum(pauses)
    if slack < 0:
        raise ValueError("speech longer than the window")
    start = int(rng.integers(0, min(slack, int(MAX_START_S * SAMPLE_RATE_HZ)) + 1))
    if lead_zero_share and rng.random() < lead_zero_share:
        start = 0
    window = np.zeros(WINDOW_SAMPLES, dtype=np.float32)
    times = []
    at = start
    for i, part in enumerate(parts):
        window[at : at + len(part)] = part.astype(np.float32) / 32768.0
        times += [at / SAMPLE_RATE_HZ, (at + len(part)) / SAMPLE_RATE_HZ]
        at += len(part) + (pauses[i] if i < len(pauses) else 0)
    return level(rng, window, peak), times


def sequence(
    texts: list[list[int]], times: list[float], timestamps: bool, prompt: list[int]
) -> tuple[list[int], int]:
    """Decoder tokens and the index of the first learned target. Without timestamps:
    [prompt] SOT NOTS text EOT (NOTS is given, not learned). With timestamps:
    [prompt] SOT <|t0|> s1 <|t1|> [<|t2|> s2 <|t3|>] EOT."""
    head = ([tokens.START_OF_PREV] + prompt) if prompt else []
    if not timestamps:
        body = [tokens.SOT, tokens.NO_TIMESTAMPS] + [t for text in texts for t in text]
        return head + body + [tokens.EOT], len(head) + 2
    body = [tokens.SOT]
    for i, text in enumerate(texts):
        body += [tokens.timestamp_token(times[2 * i])] + text
        body += [tokens.timestamp_token(times[2 * i + 1])]
    return head + body + [tokens.EOT], len(head) + 1


class BatchMaker:
    def __init__(self, pools: ClipPools, word_ids: dict[str, list[int]], curriculum: Curriculum,
                 seed: int):
        self.pools = pools
        self.word_ids = word_ids
        self.curriculum = curriculum
        self.seed = seed
        self.streams = streams.StreamMaker(pools, word_ids, curriculum.pool_sentences,
                                           curriculum.cut_pool_d)  # fmt: skip

    def text(self, words: tuple[str, ...]) -> list[int]:
        return self.streams.text(words)

    def _pick(self, rng: np.random.Generator, phase: str) -> tuple[list[str], bool]:
        """Pools to draw from: ["words_a"], ["words"], ["sentences"] or two sentences; and
        whether a prompt is added."""
        c = self.curriculum
        if phase == "A":
            return ["words_a"], False
        if phase == "B" or rng.random() < c.short_share_c:
            return ["words"], False
        pools = ["sentences", "sentences"] if rng.random() < c.pair_share_c else ["sentences"]
        return pools, rng.random() < c.prompt_share_c

    def stream_item(self, rng: np.random.Generator) -> Item:
        """Phase D: a window of a sentence stream, as the seek loop or the live pipeline sees it."""
        c = self.curriculum
        timestamps = rng.random() < c.timestamp_share
        for _ in range(20):
            try:
                if rng.random() < c.words_share_d:
                    window, heard = self.streams.word_by_word_window(rng)
                else:
                    window, heard = self.streams.whole_sentences_window(rng)
            except ValueError:
                continue
            if heard and heard[0].start > streams.MAX_FIRST_TIMESTAMP_S * SAMPLE_RATE_HZ:
                continue
            prompt = self.streams.prompt(rng, timestamps) if rng.random() < c.prompt_share_d else []
            seq, first = streams.stream_sequence(heard, timestamps, prompt)
            window = level(rng, window, c.peak_d)
            return Item(window, seq, first, [i for h in heard for i in h.ids])
        raise RuntimeError("no stream window fits")

    def item(self, rng: np.random.Generator, phase: str) -> Item:
        c = self.curriculum
        d = phase == "D"
        if d and rng.random() < c.stream_share_d:
            return self.stream_item(rng)
        sizes = {"words_a": c.pool_words_a, "words": c.pool_words, "sentences": c.pool_sentences}
        pools, with_prompt = self._pick(rng, "C" if d else phase)
        timestamps = rng.random() < c.timestamp_share
        for _ in range(20):
            numbers = [int(rng.integers(sizes[p])) for p in pools]
            try:
                clips = [self.pools.audio(p, n) for p, n in zip(pools, numbers)]
                if d:
                    window, times = place(rng, clips, c.lead_zero_share_d, c.peak_d)
                else:
                    window, times = place(rng, clips)
            except ValueError:
                pools = pools[:1]  # a pair that does not fit: try single clips
                continue
            texts = [self.text(self.pools.spec(p, n).words) for p, n in zip(pools, numbers)]
            prompt = []
            if d:
                if rng.random() < c.prompt_share_d:
                    prompt = self.streams.prompt(rng, timestamps)
            elif with_prompt:
                other = self.pools.spec("sentences", int(rng.integers(c.pool_sentences)))
                prompt = self.text(other.words)
            seq, first = sequence(texts, times, timestamps, prompt)
            return Item(window, seq, first, [t for text in texts for t in text])
        raise RuntimeError("no clip of the pools fits the window")

    def batch(self, step: int, batch_size: int) -> Batch:
        """The batch of `step`: a function of (seed, step) only, so a resumed run sees the same."""
        rng = np.random.default_rng([self.seed, 99, step])
        phase = self.curriculum.phase(step)
        return collate([self.item(rng, phase) for _ in range(batch_size)])


def collate(items: list[Item]) -> Batch:
    length = max(len(it.sequence) for it in items) - 1
    inputs = np.full((len(items), length), tokens.EOT, dtype=np.int64)
    targets = np.full((len(items), length), tokens.EOT, dtype=np.int64)
    mask = np.zeros((len(items), length), dtype=np.float32)
    for b, it in enumerate(items):
        n = len(it.sequence) - 1
        inputs[b, :n] = it.sequence[:-1]
        targets[b, :n] = it.sequence[1:]
        mask[b, it.first_learned - 1 : n] = 1.0  # input i predicts sequence[i + 1]
    samples = np.stack([it.samples for it in items])  # [B, 96000] float32 in [-1, 1]
    samples = np.clip(np.rint(samples * 32768.0), -32768, 32767).astype(np.int16)
    return Batch(samples, inputs, targets, mask, [it.text for it in items])
