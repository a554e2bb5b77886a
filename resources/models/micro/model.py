# The micro Whisper in PyTorch, written to the numerics Earshot runs (reference §2-§3): conv stem
# with erf GELU, stored sinusoids, pre-LN blocks, q and k each scaled by Dh^-0.25, k_proj without
# bias, tied logits; plus the training-only CTC head on the encoder states (dropped at export).
import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

import tokens


@dataclass
class Dims:
    n_mels: int = 80
    n_frames: int = 600  # 6 s windows
    d_model: int = 64
    n_heads: int = 4
    encoder_layers: int = 2
    decoder_layers: int = 2
    n_vocab: int = tokens.N_VOCAB
    max_target_positions: int = 448

    @property
    def audio_positions(self) -> int:
        return (self.n_frames - 1) // 2 + 1  # conv2 has stride 2: 600 -> 300

    @property
    def ffn_dim(self) -> int:
        return 4 * self.d_model


def sinusoids(positions: int, channels: int) -> torch.Tensor:
    """[positions, channels]: sines in the first half of the channels, cosines in the second,
    inverse frequencies exp(-i * ln(10000) / (channels/2 - 1)) (reference §2.3)."""
    half = channels // 2
    increment = math.log(10000.0) / (half - 1)
    inv = torch.exp(-increment * torch.arange(half, dtype=torch.float64))  # [half]
    angle = torch.arange(positions, dtype=torch.float64)[:, None] * inv[None, :]  # [P, half]
    return torch.cat([angle.sin(), angle.cos()], dim=1).float()


class Attention(nn.Module):
    def __init__(self, d_model: int, n_heads: int):
        super().__init__()
        self.n_heads = n_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def _heads(self, x: torch.Tensor) -> torch.Tensor:
        b, n, d = x.shape  # [B, N, D] -> [B, Heads, N, D / Heads]
        return x.view(b, n, self.n_heads, d // self.n_heads).transpose(1, 2)

    def forward(self, x: torch.Tensor, source: torch.Tensor, causal: bool) -> torch.Tensor:
        b, n, d = x.shape
        scale = (d // self.n_heads) ** -0.25
        q = self._heads(self.q_proj(x)) * scale  # [B, H, N, Dh]
        k = self._heads(self.k_proj(source)) * scale  # [B, H, M, Dh]
        v = self._heads(self.v_proj(source))  # [B, H, M, Dh]
        scores = q @ k.transpose(-1, -2)  # [B, H, N, M]
        if causal:
            m = source.shape[1]
            mask = torch.ones(n, m, dtype=torch.bool, device=x.device).triu(1)
            scores = scores.masked_fill(mask, float("-inf"))
        mixed = scores.softmax(dim=-1) @ v  # [B, H, N, Dh]
        return self.out_proj(mixed.transpose(1, 2).reshape(b, n, d))


class EncoderLayer(nn.Module):
    def __init__(self, dims: Dims):
        super().__init__()
        self.self_attn_layer_norm = nn.LayerNorm(dims.d_model, eps=1e-5)
        self.self_attn = Attention(dims.d_model, dims.n_heads)
        self.final_layer_norm = nn.LayerNorm(dims.d_model, eps=1e-5)
        self.fc1 = nn.Linear(dims.d_model, dims.ffn_dim)
        self.fc2 = nn.Linear(dims.ffn_dim, dims.d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.self_attn_layer_norm(x)
        x = x + self.self_attn(h, h, causal=False)
        return x + self.fc2(F.gelu(self.fc1(self.final_layer_norm(x))))


class DecoderLayer(nn.Module):
    def __init__(self, dims: Dims):
        super().__init__()
        self.self_attn_layer_norm = nn.LayerNorm(dims.d_model, eps=1e-5)
        self.self_attn = Attention(dims.d_model, dims.n_heads)
        self.encoder_attn_layer_norm = nn.LayerNorm(dims.d_model, eps=1e-5)
        self.encoder_attn = Attention(dims.d_model, dims.n_heads)
        self.final_layer_norm = nn.LayerNorm(dims.d_model, eps=1e-5)
        self.fc1 = nn.Linear(dims.d_model, dims.ffn_dim)
        self.fc2 = nn.Linear(dims.ffn_dim, dims.d_model)

    def forward(self, x: torch.Tensor, audio: torch.Tensor) -> torch.Tensor:
        h = self.self_attn_layer_norm(x)
        x = x + self.self_attn(h, h, causal=True)
        x = x + self.encoder_attn(self.encoder_attn_layer_norm(x), audio, causal=False)
        return x + self.fc2(F.gelu(self.fc1(self.final_layer_norm(x))))


class Encoder(nn.Module):
    def __init__(self, dims: Dims):
        super().__init__()
        self.conv1 = nn.Conv1d(dims.n_mels, dims.d_model, kernel_size=3, padding=1)
        self.conv2 = nn.Conv1d(dims.d_model, dims.d_model, kernel_size=3, stride=2, padding=1)
        self.register_buffer("embed_positions", sinusoids(dims.audio_positions, dims.d_model))
        self.layers = nn.ModuleList(EncoderLayer(dims) for _ in range(dims.encoder_layers))
        self.layer_norm = nn.LayerNorm(dims.d_model, eps=1e-5)

    def forward(self, mel: torch.Tensor) -> torch.Tensor:
        x = F.gelu(self.conv1(mel))  # [B, D, Frames]
        x = F.gelu(self.conv2(x)).transpose(1, 2)  # [B, A, D], A = 1 + (Frames - 1) / 2
        x = x + self.embed_positions
        for layer in self.layers:
            x = layer(x)
        return self.layer_norm(x)


class Decoder(nn.Module):
    def __init__(self, dims: Dims):
        super().__init__()
        self.embed_tokens = nn.Embedding(dims.n_vocab, dims.d_model)  # [Vocab, D], exported
        self.embed_positions = nn.Parameter(torch.empty(dims.max_target_positions, dims.d_model))
        self.layers = nn.ModuleList(DecoderLayer(dims) for _ in range(dims.decoder_layers))
        self.layer_norm = nn.LayerNorm(dims.d_model, eps=1e-5)
        self.live_rows: nn.Parameter | None = None  # [L, D] while training, see train_live_rows

    def train_live_rows(self, live_ids: list[int]) -> None:
        """From now on only the rows of `live_ids` (the ids the data uses) are trained, as their
        own parameter; the other rows stay frozen at their tiny initial values. Training reads
        tokens and restricted logits from the live rows; sync_live_rows() writes them back into
        the full table that evaluation and export use."""
        ids = torch.tensor(sorted(live_ids))  # [L]
        index = torch.full((self.embed_tokens.num_embeddings,), -1, dtype=torch.long)
        index[ids] = torch.arange(len(ids))
        self.register_buffer("live_ids", ids)
        self.register_buffer("live_index", index)  # [Vocab]: id -> live row, -1 elsewhere
        self.embed_tokens.weight.requires_grad_(False)
        self.live_rows = nn.Parameter(self.embed_tokens.weight[ids].clone())

    def sync_live_rows(self) -> None:
        if self.live_rows is not None:
            with torch.no_grad():
                self.embed_tokens.weight[self.live_ids] = self.live_rows

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        if self.live_rows is None or not self.training:
            return self.embed_tokens(ids)
        rows = self.live_index[ids]
        if bool((rows < 0).any()):
            raise ValueError("training input holds an id outside the live rows")
        return self.live_rows[rows]

    def hidden(self, ids: torch.Tensor, audio: torch.Tensor) -> torch.Tensor:
        """Final-norm states [B, S, D] of token ids [B, S] over audio states [B, A, D]."""
        x = self.embed(ids) + self.embed_positions[: ids.shape[1]]
        for layer in self.layers:
            x = layer(x, audio)
        return self.layer_norm(x)

    def logits(self, hidden: torch.Tensor) -> torch.Tensor:
        """Tied logits h @ E.T over the full vocabulary [.., Vocab] (the table as exported)."""
        return hidden @ self.embed_tokens.weight.T

    def restricted_logits(self, hidden: torch.Tensor, negatives: torch.Tensor) -> torch.Tensor:
        """Training logits [.., L + N]: the live rows in id order, then the frozen rows of
        `negatives` (ids outside the live set), so the live logits learn to beat them."""
        table = torch.cat([self.live_rows, self.embed_tokens.weight[negatives]])  # [L + N, D]
        return hidden @ table.T


class MicroWhisper(nn.Module):
    def __init__(self, dims: Dims, ctc_classes: int):
        super().__init__()
        self.dims = dims
        self.encoder = Encoder(dims)
        self.decoder = Decoder(dims)
        self.ctc_head = nn.Linear(dims.d_model, ctc_classes)  # training only; blank = class 0

    def forward(self, mel: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        """Full-vocabulary logits [B, S, Vocab] (what Earshot's decode entry computes)."""
        return self.decoder.logits(self.decoder.hidden(ids, self.encoder(mel)))


def initialise(model: MicroWhisper, live_ids: list[int], generator: torch.Generator,
               frozen_row_std: float = 1e-4) -> None:
    """Token rows the data uses (as input or target) start at N(0, 0.02); every other row at
    N(0, frozen_row_std), so their logits stay near 0 and the full argmax never picks them (at
    0.0 they are exact zeros: the same logits to within 1e-3, and an export whose 51 000 unused
    rows git compresses to almost nothing). Decoder positions start at N(0, 0.01)."""
    with torch.no_grad():
        table = model.decoder.embed_tokens.weight  # [Vocab, D]
        table.normal_(0.0, 1.0, generator=generator)
        table.mul_(frozen_row_std)
        live = torch.tensor(sorted(live_ids))
        table[live] = torch.randn(len(live), table.shape[1], generator=generator) * 0.02
        model.decoder.embed_positions.normal_(0.0, 0.01, generator=generator)
