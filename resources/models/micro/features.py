# Whisper's log-mel front end for the micro model's 6 s windows (reference §1): periodic Hann,
# centred reflect-padded STFT, power, Slaney filterbank computed here, log10, max-8 clamp, (x+4)/4.
import numpy as np
import torch

SAMPLE_RATE_HZ = 16000
N_FFT = 400
HOP_SAMPLES = 160
N_MELS = 80
WINDOW_SECONDS = 6
WINDOW_SAMPLES = WINDOW_SECONDS * SAMPLE_RATE_HZ  # 96000
WINDOW_FRAMES = WINDOW_SAMPLES // HOP_SAMPLES  # 600 (the STFT's last frame is dropped)


def _hz_to_slaney_mel(hz: np.ndarray) -> np.ndarray:
    """Slaney mel scale: linear below 1 kHz (200/3 Hz per mel), logarithmic above."""
    f_sp = 200.0 / 3.0
    log_step = np.log(6.4) / 27.0
    hz = np.asarray(hz, dtype=np.float64)
    return np.where(hz < 1000.0, hz / f_sp, 15.0 + np.log(np.maximum(hz, 1e-9) / 1000.0) / log_step)


def _slaney_mel_to_hz(mel: np.ndarray) -> np.ndarray:
    f_sp = 200.0 / 3.0
    log_step = np.log(6.4) / 27.0
    mel = np.asarray(mel, dtype=np.float64)
    return np.where(mel < 15.0, f_sp * mel, 1000.0 * np.exp(log_step * (mel - 15.0)))


def mel_filterbank(n_mels: int = N_MELS) -> np.ndarray:
    """[n_mels, 201] float32: triangular filters equally spaced in Slaney mel on 0..8000 Hz, each
    row scaled by 2 / (upper edge - lower edge) (Slaney area normalisation); built in float64."""
    n_bins = N_FFT // 2 + 1
    bin_hz = np.arange(n_bins, dtype=np.float64) * SAMPLE_RATE_HZ / N_FFT  # [201]
    top_mel = _hz_to_slaney_mel(np.array(SAMPLE_RATE_HZ / 2.0))
    edges_hz = _slaney_mel_to_hz(np.linspace(0.0, top_mel, n_mels + 2))  # [n_mels + 2]
    filters = np.zeros((n_mels, n_bins), dtype=np.float64)
    for i in range(n_mels):
        lower = (bin_hz - edges_hz[i]) / (edges_hz[i + 1] - edges_hz[i])
        upper = (edges_hz[i + 2] - bin_hz) / (edges_hz[i + 2] - edges_hz[i + 1])
        area = 2.0 / (edges_hz[i + 2] - edges_hz[i])
        filters[i] = np.maximum(0.0, np.minimum(lower, upper)) * area
    return filters.astype(np.float32)


class LogMel:
    """Batched log-mel of 6 s windows: samples [B, <=96000] float32 in [-1, 1) -> [B, 80, 600]."""

    def __init__(self):
        self.window = torch.hann_window(N_FFT, periodic=True, dtype=torch.float32)  # [400]
        self.filters = torch.from_numpy(mel_filterbank())  # [80, 201]

    def to(self, device: torch.device) -> "LogMel":
        self.window = self.window.to(device)
        self.filters = self.filters.to(device)
        return self

    def __call__(self, samples: torch.Tensor) -> torch.Tensor:
        batch = samples.shape[0]
        padded = torch.zeros(batch, WINDOW_SAMPLES, dtype=torch.float32,
                             device=samples.device)  # [B, 96000]
        length = min(samples.shape[1], WINDOW_SAMPLES)
        padded[:, :length] = samples[:, :length]
        spectrum = torch.stft(
            padded, N_FFT, HOP_SAMPLES, window=self.window, center=True, pad_mode="reflect",
            return_complex=True,
        )  # [B, 201, 601]
        power = spectrum[..., :-1].abs() ** 2  # [B, 201, 600]
        mel = self.filters @ power  # [B, 80, 600]
        log_mel = torch.clamp(mel, min=1e-10).log10()
        peak = log_mel.amax(dim=(1, 2), keepdim=True)  # [B, 1, 1], the whole window's maximum
        log_mel = torch.maximum(log_mel, peak - 8.0)
        return (log_mel + 4.0) / 4.0
