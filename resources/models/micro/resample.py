# espeak-ng's WAV output read from memory and resampled to 16 kHz here, so that training needs no
# sox: a polyphase windowed-sinc filter (Kaiser window), one kernel per output phase.
import math
import struct
from functools import lru_cache

import numpy as np

HALF_TAPS = 24  # input samples on each side of an output sample
KAISER_BETA = 8.6  # about 90 dB of stop-band attenuation
CUTOFF = 0.92  # pass band edge, as a share of the lower of the two Nyquist frequencies


def read_wav_int16(data: bytes) -> tuple[int, np.ndarray]:
    """(sample rate, int16 samples of the first channel) of a PCM16 WAV held in memory. The data
    chunk may declare a wrong size (espeak-ng --stdout streams it): it runs to the end."""
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise ValueError("not a WAV file")
    at, rate_hz, channels, bits = 12, 0, 0, 0
    while at + 8 <= len(data):
        tag, size = data[at : at + 4], struct.unpack("<I", data[at + 4 : at + 8])[0]
        body = at + 8
        if tag == b"fmt ":
            fmt, channels, rate_hz = struct.unpack("<HHI", data[body : body + 8])
            bits = struct.unpack("<H", data[body + 14 : body + 16])[0]
            if fmt != 1 or bits != 16:
                raise ValueError(f"WAV format {fmt} with {bits} bits, expected PCM 16")
        elif tag == b"data":
            if not rate_hz:
                raise ValueError("WAV data before its fmt chunk")
            end = min(body + size, len(data))
            end -= (end - body) % (2 * channels)
            samples = np.frombuffer(data[body:end], dtype="<i2").reshape(-1, channels)
            return rate_hz, samples[:, 0].copy()
        at = body + size + (size & 1)
    raise ValueError("WAV without a data chunk")


@lru_cache(maxsize=4)
def _kernels(up: int, down: int) -> np.ndarray:
    """[up, 2 * HALF_TAPS] float64: for output phase p (the output sample sits p/up of an input
    sample after input sample `base`), the weights of input samples base-HALF_TAPS+1 .. base+
    HALF_TAPS: a low-pass sinc at CUTOFF of the lower Nyquist, Kaiser windowed."""
    fc = CUTOFF * min(1.0, up / down)  # cutoff in units of the input Nyquist frequency
    offsets = np.arange(-HALF_TAPS + 1, HALF_TAPS + 1, dtype=np.float64)  # [2K]
    distance = offsets[None, :] - np.arange(up, dtype=np.float64)[:, None] / up  # [up, 2K]
    inside = np.clip(1.0 - (distance / HALF_TAPS) ** 2, 0.0, None)
    window = np.i0(KAISER_BETA * np.sqrt(inside)) / np.i0(KAISER_BETA)
    return fc * np.sinc(fc * distance) * window


def resample(samples: np.ndarray, from_hz: int, to_hz: int) -> np.ndarray:
    """samples [N] float64 at from_hz -> [ceil(N * to_hz / from_hz)] float64 at to_hz."""
    if from_hz == to_hz:
        return samples.astype(np.float64)
    g = math.gcd(from_hz, to_hz)
    up, down = to_hz // g, from_hz // g
    count = -(-len(samples) * up // down)
    position = np.arange(count, dtype=np.int64) * down  # in units of 1/up input sample
    base, phase = position // up, position % up  # [count]
    padded = np.concatenate([np.zeros(HALF_TAPS), samples, np.zeros(HALF_TAPS + 1)])
    taps = base[:, None] + np.arange(1, 2 * HALF_TAPS + 1)[None, :]  # [count, 2K] into padded
    return np.einsum("nk,nk->n", padded[taps], _kernels(up, down)[phase])


def to_int16(samples: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(samples), -32768, 32767).astype(np.int16)
