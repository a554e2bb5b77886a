# Phase D's training windows: speech as Earshot's long-form seek loop and live pipeline cut it.
# A stream of sentences with pauses, spoken whole (sentence-pool clips of one voice) or word by
# word (the speaker bank, as the live tests speak), seen through a window that may start in a pause
# or inside a sentence and may end inside one: at the 6 s window end (long form) or where the audio
# heard so far ends, zero padded after it (live). The targets follow Whisper's convention, which
# Earshot's seek loop reads: a complete sentence is <|ts|> text <|te|>; a sentence the window cuts
# is <|ts|> and the words it holds whole, without an end timestamp, and the sequence ends there
# (the seek loop then resumes at the previous segment's end); a word cut at either edge is not
# said.
from dataclasses import dataclass

import numpy as np

import tokens
from speech import SAMPLE_RATE_HZ, ClipPools

WINDOW_SAMPLES = 6 * SAMPLE_RATE_HZ
MAX_FIRST_TIMESTAMP_S = 1.0  # Whisper's initial-timestamp rule
PAUSE_S = (0.25, 1.5)  # between sentences
MIN_HEARD_S = 0.08  # less of a cut sentence than this is not counted as heard
PROMPT_MAX_TOKENS = 223  # Whisper keeps the last n_text_ctx // 2 - 1 prompt tokens
# Word by word, the share of sentences that start with the word the previous one ended with: the
# second model said a segment's first word twice after a pause ("garden ... <|2.74|> garden car"),
# so the stream now sometimes does say it twice, and the model must hear how many there are.
REPEAT_AFTER_PAUSE_SHARE = 0.2


@dataclass
class Span:
    """A word (word by word) or a whole sentence clip in the stream, samples from its start."""

    ids: list[int]
    start: int
    end: int


@dataclass
class Heard:
    """What one window holds of one sentence: the ids it holds whole, where they start and end
    in the window (samples), and whether the sentence ends inside the window."""

    ids: list[int]
    start: int
    end: int
    complete: bool


class StreamMaker:
    def __init__(self, pools: ClipPools, word_ids: dict[str, list[int]], pool_sentences: int,
                 cut_pool: int = 0):
        self.pools = pools
        self.word_ids = word_ids
        self.pool_sentences = pool_sentences
        # Windows that cut their last sentence draw from the first cut_pool sentences (0: all):
        # a cut synthesizes the sentence's first words alone, and a smaller set of them is
        # cached sooner.
        self.cut_pool = min(cut_pool or pool_sentences, pool_sentences)

    def text(self, words: tuple[str, ...]) -> list[int]:
        return [i for w in words for i in self.word_ids[w]]

    # --- word by word --------------------------------------------------------------------
    def _sentence_words(self, rng: np.random.Generator, first: str | None) -> tuple[str, ...]:
        """3-9 random words; the first one is `first` when given."""
        words = self.pools.vocabulary.words
        while True:
            text = tuple(words[i] for i in rng.integers(len(words), size=int(rng.integers(3, 10))))
            if first is not None:
                text = (first,) + text[1:]
            if text not in self.pools.heldout_texts:
                return text

    def word_by_word(self, rng: np.random.Generator) -> tuple[np.ndarray, list[list[Span]]]:
        """A stream of 2-4 sentences said word by word by one bank speaker: float32 samples
        (1 s of silence first) and each sentence's words with exact times."""
        speaker = int(rng.integers(self.pools.speakers))
        base_gap_s = rng.uniform(0.0, 0.2)
        chunks, sentences = [np.zeros(SAMPLE_RATE_HZ, dtype=np.float32)], []
        last_word = None
        at = SAMPLE_RATE_HZ
        for s in range(int(rng.integers(2, 5))):
            if s > 0:
                pause = int(rng.uniform(*PAUSE_S) * SAMPLE_RATE_HZ)
                chunks.append(np.zeros(pause, dtype=np.float32))
                at += pause
            spans = []
            repeat = s > 0 and rng.random() < REPEAT_AFTER_PAUSE_SHARE
            first = last_word if repeat else None
            said = self._sentence_words(rng, first)
            last_word = said[-1]
            for i, word in enumerate(said):
                if i > 0:
                    gap = int(base_gap_s * rng.uniform(0.7, 1.3) * SAMPLE_RATE_HZ)
                    chunks.append(np.zeros(gap, dtype=np.float32))
                    at += gap
                clip = self.pools.word_audio(speaker, word).astype(np.float32) / 32768.0
                chunks.append(clip)
                spans.append(Span(self.word_ids[word], at, at + len(clip)))
                at += len(clip)
            sentences.append(spans)
        chunks.append(np.zeros(SAMPLE_RATE_HZ, dtype=np.float32))
        return np.concatenate(chunks), sentences

    @staticmethod
    def heard_words(sentences: list[list[Span]], begin: int, end: int) -> list[Heard]:
        """What the window [begin, end) of a word-by-word stream holds, sentence by sentence,
        up to and including the first sentence it cuts."""
        heard = []
        for spans in sentences:
            if spans[-1].end <= begin:
                continue
            if spans[0].start >= end:
                break
            whole = [w for w in spans if w.start >= begin and w.end <= end]
            complete = spans[-1].end <= end
            if complete:
                if whole:
                    heard.append(Heard([i for w in whole for i in w.ids], whole[0].start - begin,
                                       whole[-1].end - begin, True))  # fmt: skip
                continue
            first = whole[0].start if whole else max(next(w.start for w in spans if w.end > begin),
                                                      begin)  # fmt: skip
            if whole or end - first >= MIN_HEARD_S * SAMPLE_RATE_HZ:
                ids = [i for w in whole for i in w.ids]
                heard.append(Heard(ids, first - begin, end - begin, False))
            break
        return heard

    def word_by_word_window(self, rng: np.random.Generator) -> tuple[np.ndarray, list[Heard]]:
        stream, sentences = self.word_by_word(rng)
        words = [w for spans in sentences for w in spans]
        if rng.random() < 0.6:  # in the pause before a sentence (or at its first sample)
            s = int(rng.integers(len(sentences)))
            room = sentences[s][0].start - (sentences[s - 1][-1].end if s > 0 else 0)
            lead = 0 if rng.random() < 0.25 else int(rng.uniform(0, min(room, SAMPLE_RATE_HZ)))
            begin = sentences[s][0].start - lead
        else:  # at a word inside a sentence, now and then a little into it
            firsts = {id(spans[0]) for spans in sentences}
            inner = [i for i, w in enumerate(words) if id(w) not in firsts]
            j = inner[int(rng.integers(len(inner)))]
            if rng.random() < 0.25:
                begin = words[j].start + int(rng.uniform(0, 0.4) * (words[j].end - words[j].start))
            else:
                begin = words[j].start - int(rng.uniform(0, 1) * (words[j].start - words[j - 1].end))
        if rng.random() < 0.5:
            end = begin + WINDOW_SAMPLES  # long form: the window end
        else:
            end = begin + int(rng.uniform(0.5, 6.0) * SAMPLE_RATE_HZ)  # live: the audio so far
        window = np.zeros(WINDOW_SAMPLES, dtype=np.float32)
        piece = stream[begin : min(end, len(stream))]
        window[: len(piece)] = piece
        return window, self.heard_words(sentences, begin, end)

    # --- whole sentences -----------------------------------------------------------------
    def _same_voice(self, rng: np.random.Generator, count: int, pool: int) -> list[int]:
        """Numbers below `pool` of sentence-pool clips said in one voice (the first draw's)."""
        numbers = [int(rng.integers(pool))]
        voice = self.pools.spec("sentences", numbers[0]).voice
        for _ in range(200):
            if len(numbers) == count:
                break
            n = int(rng.integers(pool))
            if self.pools.spec("sentences", n).voice == voice:
                numbers.append(n)
        return numbers

    def whole_sentences_window(self, rng: np.random.Generator) -> tuple[np.ndarray, list[Heard]]:
        """1-3 sentences of one voice with pauses; the last one is cut after k words in 65% of
        the windows, and then half the time the cut is placed at the window's last sample."""
        cutting = rng.random() < 0.65
        pool = self.cut_pool if cutting else self.pool_sentences
        numbers = self._same_voice(rng, int(rng.integers(1, 4)), pool)
        clips = [self.pools.audio("sentences", n).astype(np.float32) / 32768.0 for n in numbers]
        texts = [self.pools.spec("sentences", n).words for n in numbers]
        pauses = [int(rng.uniform(*PAUSE_S) * SAMPLE_RATE_HZ) for _ in numbers[1:]]
        cut = None  # (samples of the last clip kept, words of it held whole)
        if cutting:
            last = len(texts) - 1
            k = int(rng.integers(len(texts[last])))
            if k == 0:
                kept = int(rng.uniform(0.1, 0.3) * SAMPLE_RATE_HZ)
            else:
                prefix = self.pools.prefix_audio("sentences", numbers[last], k)
                kept = len(prefix) + int(rng.uniform(0.0, 0.08) * SAMPLE_RATE_HZ)
            if kept < len(clips[last]):
                cut = (kept, k)
                clips[last] = clips[last][:kept]
        # Drop leading sentences until the speech fits the window with at most 1 s before it.
        while len(clips) > 1 and sum(map(len, clips)) + sum(pauses) > WINDOW_SAMPLES:
            clips, texts, numbers, pauses = clips[1:], texts[1:], numbers[1:], pauses[1:]
        speech = sum(map(len, clips)) + sum(pauses)
        if speech > WINDOW_SAMPLES:
            raise ValueError("a sentence longer than the window")
        room = min(WINDOW_SAMPLES - speech, SAMPLE_RATE_HZ)
        lead = 0 if rng.random() < 0.25 else int(rng.uniform(0, 1) * room)
        if cut is not None and rng.random() < 0.5 and WINDOW_SAMPLES - speech <= SAMPLE_RATE_HZ:
            lead = WINDOW_SAMPLES - speech  # the cut falls on the window's last sample
        window = np.zeros(WINDOW_SAMPLES, dtype=np.float32)
        heard, at = [], lead
        for i, (clip, words) in enumerate(zip(clips, texts)):
            window[at : at + len(clip)] = clip
            is_cut = cut is not None and i == len(clips) - 1
            ids = self.text(words[: cut[1]] if is_cut else words)
            heard.append(Heard(ids, at, at + len(clip), not is_cut))
            at += len(clip) + (pauses[i] if i < len(pauses) else 0)
        return window, heard

    # --- targets -------------------------------------------------------------------------
    def prompt(self, rng: np.random.Generator, timestamps: bool) -> list[int]:
        """Earlier text as the seek loop or the live pipeline passes it: sentences, with segment
        timestamps half the time in timestamps mode, cut to its last 1-223 tokens."""
        wanted = int(rng.integers(1, PROMPT_MAX_TOKENS + 1))
        with_times = timestamps and rng.random() < 0.5
        ids: list[int] = []
        while len(ids) < wanted:
            words = self.pools.spec("sentences", int(rng.integers(self.pool_sentences))).words
            text = self.text(words)
            if with_times:
                t0 = rng.uniform(0, 2.5)
                text = [tokens.timestamp_token(t0)] + text
                text += [tokens.timestamp_token(min(6.0, t0 + rng.uniform(0.8, 3.5)))]
            ids += text
        return ids[-wanted:]


def stream_sequence(heard: list[Heard], timestamps: bool, prompt: list[int]) -> tuple[list[int], int]:
    """Decoder tokens for a stream window and the index of the first learned target."""
    head = ([tokens.START_OF_PREV] + prompt) if prompt else []
    if not timestamps:
        body = [tokens.SOT, tokens.NO_TIMESTAMPS] + [i for h in heard for i in h.ids]
        return head + body + [tokens.EOT], len(head) + 2
    body = [tokens.SOT]
    for h in heard:
        body += [tokens.timestamp_token(h.start / SAMPLE_RATE_HZ)] + h.ids
        if h.complete:
            body += [tokens.timestamp_token(h.end / SAMPLE_RATE_HZ)]
    return head + body + [tokens.EOT], len(head) + 1
