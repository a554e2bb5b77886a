# Token ids for the micro model: byte-level BPE over the GPT-2 vocabulary (vocab.json +
# merges.txt beside the exported model) and the English-only special-token layout (n_vocab 51864).
import json
from pathlib import Path

# English-only Whisper layout (reference §4.2): the GPT-2 ranks 0..50255, then the specials.
N_VOCAB = 51864
EOT = 50256
SOT = 50257
TRANSLATE = 50357
TRANSCRIBE = 50358
START_OF_LM = 50359
START_OF_PREV = 50360
NO_SPEECH = 50361
NO_TIMESTAMPS = 50362
TIMESTAMP_BEGIN = 50363  # <|0.00|>; token TIMESTAMP_BEGIN + k means k * 0.02 s
SECONDS_PER_TIMESTAMP = 0.02


def timestamp_token(seconds: float) -> int:
    """The timestamp token nearest to `seconds` (0.02 s steps from the window start)."""
    return TIMESTAMP_BEGIN + int(round(seconds / SECONDS_PER_TIMESTAMP))


def byte_to_unicode() -> dict[int, str]:
    """GPT-2's byte -> printable character map (reference §4.1): bytes 33-126, 161-172 and
    174-255 stand for themselves; the other 68 bytes, in increasing order, map to U+0100 + n."""
    kept = set(range(33, 127)) | set(range(161, 173)) | set(range(174, 256))
    table = {}
    shifted = 0
    for byte in range(256):
        if byte in kept:
            table[byte] = chr(byte)
        else:
            table[byte] = chr(256 + shifted)
            shifted += 1
    return table


class BytePairEncoder:
    """Rank-based BPE over one pre-tokenized piece: start from single bytes, merge the adjacent
    pair of lowest merge rank until no pair is a known merge."""

    def __init__(self, vocab_json: Path, merges_txt: Path):
        self.token_to_id: dict[str, int] = json.loads(vocab_json.read_text(encoding="utf-8"))
        self.id_to_token = {i: t for t, i in self.token_to_id.items()}
        self.merge_rank: dict[tuple[str, str], int] = {}
        lines = merges_txt.read_text(encoding="utf-8").split("\n")
        for line in lines:
            if not line or line.startswith("#version"):
                continue
            left, right = line.split(" ")
            self.merge_rank[(left, right)] = len(self.merge_rank)
        self.byte_char = byte_to_unicode()
        self.char_byte = {c: b for b, c in self.byte_char.items()}

    def encode_piece(self, piece: str) -> list[int]:
        """Ids of one piece (a single match of the GPT-2 pre-tokenizer, e.g. " word")."""
        parts = [self.byte_char[b] for b in piece.encode("utf-8")]
        while len(parts) > 1:
            ranks = [
                self.merge_rank.get((parts[i], parts[i + 1]), None) for i in range(len(parts) - 1)
            ]
            known = [(r, i) for i, r in enumerate(ranks) if r is not None]
            if not known:
                break
            best_rank = min(known)[0]
            merged = []
            i = 0
            while i < len(parts):
                if (
                    i + 1 < len(parts)
                    and self.merge_rank.get((parts[i], parts[i + 1])) == best_rank
                ):
                    merged.append(parts[i] + parts[i + 1])
                    i += 2
                else:
                    merged.append(parts[i])
                    i += 1
            parts = merged
        return [self.token_to_id[p] for p in parts]

    def decode(self, ids: list[int]) -> str:
        """Text of base-vocabulary ids; specials and timestamps are skipped."""
        data = bytearray()
        for i in ids:
            if i < EOT:
                data.extend(self.char_byte[c] for c in self.id_to_token[i])
        return data.decode("utf-8", errors="replace")


def word_tokens(encoder: BytePairEncoder, words: list[str]) -> dict[str, list[int]]:
    """Each word's ids as Whisper writes it inside a text: " word" with its leading space."""
    return {w: encoder.encode_piece(" " + w) for w in words}


# openai's non-speech symbols (reference §5.2), each tried alone and after a space.
_NON_SPEECH_SYMBOLS = list('"#()*+/:;<=>@[\\]^_`{|}~「」『』') + [
    "<<", ">>", "<<<", ">>>", "--", "---", "-(", "-[", "('", '("', "((", "))", "(((", ")))",
    "[[", "]]", "{{", "}}", "♪♪", "♪♪♪",
]  # fmt: skip
_MUSIC_SYMBOLS = list("♩♪♫♬♭♮♯")


def suppress_tokens(encoder: BytePairEncoder) -> list[int]:
    """generation_config's suppress_tokens for an English-only model: the non-speech ids (each
    symbol alone or after a space, kept when it is one token; the music symbols' first token;
    " -" and " '") plus SOT, translate, transcribe, startoflm, startofprev, nospeech."""
    ids = {encoder.encode_piece(" -")[0], encoder.encode_piece(" '")[0]}
    for symbol in _NON_SPEECH_SYMBOLS + _MUSIC_SYMBOLS:
        for text in (symbol, " " + symbol):
            piece = encoder.encode_piece(text)
            if len(piece) == 1 or symbol in _MUSIC_SYMBOLS:
                ids.add(piece[0])
    ids |= {SOT, TRANSLATE, TRANSCRIBE, START_OF_LM, START_OF_PREV, NO_SPEECH}
    return sorted(ids)
