# Greedy decoding of the micro model with the FULL 51864-way argmax (no suppression, no timestamp
# rules), word error rate, and a count of picks outside the ids the data uses.
from dataclasses import dataclass

import torch

import tokens
from model import MicroWhisper


def greedy(model: MicroWhisper, mel: torch.Tensor, prompt: list[int],
           max_new: int = 40) -> list[list[int]]:
    """Generated ids (without EOT) of each window in mel [B, 80, Frames], full-vocabulary argmax."""
    with torch.no_grad():
        audio = model.encoder(mel)  # [B, A, D]
        ids = torch.tensor([prompt] * mel.shape[0], device=mel.device)  # [B, S]
        done = torch.zeros(mel.shape[0], dtype=torch.bool, device=mel.device)
        for _ in range(max_new):
            hidden = model.decoder.hidden(ids, audio)[:, -1]  # [B, D]
            step = model.decoder.logits(hidden).argmax(dim=-1)  # [B], over all 51864 ids
            step = torch.where(done, torch.full_like(step, tokens.EOT), step)
            ids = torch.cat([ids, step[:, None]], dim=1)
            done |= step == tokens.EOT
            if bool(done.all()):
                break
    out = []
    for row in ids[:, len(prompt) :].tolist():
        out.append(row[: row.index(tokens.EOT)] if tokens.EOT in row else row)
    return out


def edit_distance(reference: list, hypothesis: list) -> int:
    previous = list(range(len(hypothesis) + 1))
    for i, r in enumerate(reference, 1):
        current = [i]
        for j, h in enumerate(hypothesis, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (r != h)))
        previous = current
    return previous[-1]


@dataclass
class Score:
    wer: float  # word errors / reference words
    exact: int  # windows whose decoded text ids equal the reference
    foreign: int  # argmax picks of ids the training data never uses
    windows: int


def score(decoded: list[list[int]], references: list[list[int]], live_ids: set[int]) -> Score:
    """Text-only comparison (timestamp tokens are dropped first)."""
    errors = words = exact = foreign = 0
    for hyp, ref in zip(decoded, references):
        foreign += sum(1 for t in hyp if t not in live_ids)
        text = [t for t in hyp if t < tokens.EOT or t not in live_ids]  # foreign ids stay errors
        errors += edit_distance(ref, text)
        words += len(ref)
        exact += int(text == ref)
    return Score(errors / max(words, 1), exact, foreign, len(references))


def evaluate(model: MicroWhisper, mel: torch.Tensor, references: list[list[int]],
             live_ids: set[int]) -> dict[str, Score]:
    """Scores of both prompts: [SOT, NOTS] and timestamps mode [SOT]."""
    model.eval()
    plain = score(greedy(model, mel, [tokens.SOT, tokens.NO_TIMESTAMPS]), references, live_ids)
    timed = score(greedy(model, mel, [tokens.SOT], max_new=50), references, live_ids)
    model.train()
    return {"plain": plain, "timed": timed}


def describe(ids: list[int], encoder: tokens.BytePairEncoder) -> str:
    """Readable decode: words, and timestamps as <|s.ss|>."""
    parts = []
    for t in ids:
        if t >= tokens.TIMESTAMP_BEGIN:
            parts.append(f"<|{(t - tokens.TIMESTAMP_BEGIN) * tokens.SECONDS_PER_TIMESTAMP:.2f}|>")
        elif t < tokens.EOT:
            parts.append(encoder.decode([t]).strip())
        else:
            parts.append(f"<{t}>")
    return " ".join(parts)
