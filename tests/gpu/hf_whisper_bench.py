#!/usr/bin/env python3
"""Hugging Face transformers on the same random checkpoints as earshot_cuda_bench (the HF
directories it writes), for the side-by-side table of tests/gpu/run.sh bench: the encoder on one
30 s window and a decoder step with the KV cache, eager (fp16, sdpa) and, with --compile, the
decoder step under torch.compile with a static cache. Times are medians of CUDA-event timings.

Usage: hf_whisper_bench.py CHECKPOINTS_DIR OUT_JSON [--compile] [--shapes a,b]
Every part that fails is reported as an error in the JSON instead of stopping the run.
"""
import json
import statistics
import sys
import time
import traceback


def median_ms(torch, run, repeats, warmup=3):
    for _ in range(warmup):
        run()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def bench_shape(torch, transformers, directory, compile_step):
    result = {}
    model = transformers.WhisperForConditionalGeneration.from_pretrained(
        directory, torch_dtype=torch.float16, attn_implementation="sdpa").cuda().eval()
    config = model.config
    features = torch.randn(1, config.num_mel_bins, 2 * config.max_source_positions,
                           dtype=torch.float16, device="cuda")
    with torch.inference_mode():
        encoder = model.model.encoder
        result["encoder_ms"] = median_ms(torch, lambda: encoder(features), 10)
        audio = encoder(features).last_hidden_state
        decoder = model.model.decoder

        # Eager: prefill 8 tokens, then time single-token steps that extend the cache.
        prompt = torch.arange(1, 9, device="cuda").unsqueeze(0)
        out = decoder(input_ids=prompt, encoder_hidden_states=audio, use_cache=True)
        cache = out.past_key_values
        token = torch.tensor([[50]], device="cuda")

        def eager_step():
            nonlocal cache
            step = decoder(input_ids=token, encoder_hidden_states=audio, past_key_values=cache,
                           use_cache=True)
            cache = step.past_key_values
            model.proj_out(step.last_hidden_state)

        result["step_ms_eager"] = median_ms(torch, eager_step, 20)

    if compile_step:
        try:
            model.generation_config.cache_implementation = "static"
            model.forward = torch.compile(model.forward, mode="reduce-overhead", fullgraph=True)
            with torch.inference_mode():
                started = time.time()
                for _ in range(2):  # compiles, then warms the CUDA graphs
                    model.generate(features, max_new_tokens=100, min_new_tokens=100,
                                   do_sample=False)
                result["compile_s"] = time.time() - started
                short = median_ms(torch, lambda: model.generate(
                    features, max_new_tokens=10, min_new_tokens=10, do_sample=False), 3, 1)
                long = median_ms(torch, lambda: model.generate(
                    features, max_new_tokens=100, min_new_tokens=100, do_sample=False), 3, 1)
                result["step_ms_compiled"] = (long - short) / 90.0
                result["window100_ms_compiled"] = long
        except Exception:
            result["compile_error"] = traceback.format_exc(limit=2).strip().splitlines()[-1]
    result["device_MiB"] = torch.cuda.max_memory_allocated() / 2**20
    del model
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    return result


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = [a for a in sys.argv[1:] if a.startswith("--")]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root, out_path = args
    shapes = ["large-v3", "large-v3-turbo", "base"]
    for flag in flags:
        if flag.startswith("--shapes="):
            shapes = flag.split("=", 1)[1].split(",")
    results = {}
    try:
        import torch
        import transformers
        results["versions"] = {"torch": torch.__version__, "transformers": transformers.__version__}
    except Exception as error:
        results["error"] = "cannot import torch/transformers: %s" % error
        json.dump(results, open(out_path, "w"), indent=1)
        return 0
    for shape in shapes:
        try:
            results[shape] = bench_shape(torch, transformers, "%s/%s" % (root, shape),
                                         "--compile" in flags)
        except Exception:
            results[shape] = {"error": traceback.format_exc(limit=2).strip().splitlines()[-1]}
        print(shape, results[shape], flush=True)
    json.dump(results, open(out_path, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
